package io.simrdma.provider;

import static io.simrdma.provider.ConnSupport.assertState;
import static io.simrdma.provider.ConnSupport.expect;
import static io.simrdma.provider.DatPair.WAIT;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.next;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.EventTestSupport.nextDto;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.CrParams;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.FreeableHandle;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.RmrBinding;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End-to-end scenarios through the DAT API only, each run over every fabric of
 * {@link EndToEndFabric}: connection establishment through a PSP (with the consumer's EP and with
 * the provider's), through an RSP, and its rejection; send/receive with and without an SRQ; RDMA
 * Write and Read through LMR triplets and through a bound RMR; graceful and abrupt disconnect;
 * reset and reconnection of the same EPs; and a seeded mix of many DTOs in flight both ways. Data
 * is checked byte for byte, every cookie completes exactly once, and every scenario ends by
 * freeing what it made and closing both IAs gracefully (which fails if anything was left).
 */
class EndToEndTest {

    private static final EnumSet<CompletionFlag> DEFAULT = CompletionFlag.defaults();
    private static final EnumSet<ConnectFlag> NO_FLAGS = EnumSet.noneOf(ConnectFlag.class);
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private static final int QLEN = 512;
    private static final int BUF = 256 * 1024;

    // ------------------------------------------------------------------ fixture

    /** EP attributes any provider with the usual limits gives (no provider defaults assumed). */
    static EpAttributes.Builder attrs() {
        return EpAttributes.builder()
                .maxMessageSize(1 << 20)
                .maxRdmaSize(1 << 20)
                .maxRecvDtos(32)
                .maxRequestDtos(32)
                .maxRecvIov(4)
                .maxRequestIov(4)
                .maxRdmaReadIn(4)
                .maxRdmaReadOut(4)
                .maxRdmaReadIov(4)
                .maxRdmaWriteIov(4);
    }

    /**
     * One node: an IA with a PZ, a receive EVD, a request EVD (DTO and RMR bind completions), a
     * connection EVD (connection events and requests) and a 256 KiB LMR with every privilege.
     * Objects a scenario makes through {@link #own} are freed, newest first, by {@link #closeGracefully}.
     */
    static final class Node {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recv;
        final EventDispatcher req;
        final EventDispatcher conn;
        final ByteBuffer buf = ByteBuffer.allocateDirect(BUF);
        final LocalMemoryRegion lmr;
        private final Deque<FreeableHandle> owned = new ArrayDeque<>();

        Node(String iaName) {
            ia = Dat.openIa(iaName, 16);
            pz = ia.createPz();
            recv = ia.createEvd(QLEN, null, EnumSet.of(EvdFlag.DTO));
            req = ia.createEvd(QLEN, null, EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND));
            conn = ia.createEvd(16, null, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            lmr = ia.createLmr(new RegionDescription.Virtual(buf), pz, MemoryPrivilege.all());
        }

        <T extends FreeableHandle> T own(T h) {
            owned.push(h);
            return h;
        }

        void disown(FreeableHandle h) {
            owned.remove(h);
        }

        Endpoint ep(EpAttributes a) {
            return own(ia.createEndpoint(pz, recv, req, conn, a));
        }

        Endpoint ep() {
            return ep(attrs().build());
        }

        LmrTriplet seg(int offset, int len) {
            return new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, len);
        }

        List<LmrTriplet> iov(int offset, int len) {
            return List.of(seg(offset, len));
        }

        RmrTriplet remote(int offset, int len) {
            return new RmrTriplet(lmr.rmrContext().orElseThrow(), lmr.registeredAddress() + offset, len);
        }

        SocketAddress address() {
            return ia.query().iaAttributes().iaAddress();
        }

        void closeGracefully() {
            while (!owned.isEmpty()) {
                owned.pop().free();
            }
            lmr.free();
            conn.free();
            req.free();
            recv.free();
            pz.free();
            ia.close(CloseFlag.GRACEFUL);
        }
    }

    /** Two nodes {@link #a} and {@link #b} of a fabric of their own. */
    static final class Pair implements AutoCloseable {
        final Node a;
        final Node b;
        private int nextQual = 3000;
        private boolean closed;

        Pair(EndToEndFabric fabric) {
            String name = "e2e" + FABRICS.incrementAndGet();
            a = new Node(fabric.iaName(name, "a"));
            try {
                b = new Node(fabric.iaName(name, "b"));
            } catch (RuntimeException e) {
                a.ia.close(CloseFlag.ABRUPT);
                throw e;
            }
        }

        int qual() {
            return nextQual++;
        }

        /** Frees every object of both nodes and closes both IAs gracefully: the scenario left nothing behind. */
        void closeGracefully() {
            closed = true;
            try {
                b.closeGracefully();
            } finally {
                a.closeGracefully();
            }
        }

        @Override
        public void close() {
            if (!closed) {
                abruptly(a);
                abruptly(b);
            }
        }

        private static void abruptly(Node n) {
            try {
                n.ia.close(CloseFlag.ABRUPT);
            } catch (DatException e) {
                // already closed by a graceful close that got half way
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private static void fill(ByteBuffer buf, int offset, int len, long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < len; i++) {
            buf.put(offset + i, (byte) r.nextInt());
        }
    }

    private static void zero(ByteBuffer buf, int offset, int len) {
        for (int i = 0; i < len; i++) {
            buf.put(offset + i, (byte) 0);
        }
    }

    private static byte[] bytes(ByteBuffer buf, int offset, int len) {
        byte[] out = new byte[len];
        buf.get(offset, out);
        return out;
    }

    /** The bytes an I/O vector of {@code n}'s LMR names, in vector order. */
    private static byte[] gather(Node n, List<LmrTriplet> iov) {
        ByteBuffer out = ByteBuffer.allocate(
                (int) iov.stream().mapToLong(LmrTriplet::segmentLength).sum());
        for (LmrTriplet t : iov) {
            out.put(bytes(n.buf, (int) (t.virtualAddress() - n.lmr.registeredAddress()), (int) t.segmentLength()));
        }
        return out.array();
    }

    private static byte[] pattern(int len, long seed) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void connect(Endpoint active, Node to, long qual, byte[] privateData) {
        active.connect(to.address(), qual, WAIT, privateData, Qos.BEST_EFFORT, NO_FLAGS);
    }

    /** Connects {@code active} (on a) to {@code passive} (on b) through a consumer PSP; both ESTABLISHED. */
    private static void connectThroughPsp(Pair p, Endpoint active, Endpoint passive) {
        connectThroughPsp(p, active, p.a.conn, passive);
    }

    /** As {@link #connectThroughPsp(Pair, Endpoint, Endpoint)}, with {@code activeConn} the connect EVD of {@code active}. */
    private static void connectThroughPsp(Pair p, Endpoint active, EventDispatcher activeConn, Endpoint passive) {
        long q = p.qual();
        PublicServicePoint psp = p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER);
        connect(active, p.b, q, null);
        next(p.b.conn, ConnectionRequestEvent.class).cr().accept(passive, null);
        expect(activeConn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
        expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
        psp.free();
    }

    /**
     * A message each way between two connected EPs, gathered from three segments and scattered
     * into three, checked byte for byte.
     */
    private static void exchange(Node x, Endpoint ex, Node y, Endpoint ey, long seed) {
        oneWay(x, ex, y, ey, seed);
        oneWay(y, ey, x, ex, seed + 1);
    }

    private static void oneWay(Node from, Endpoint src, Node to, Endpoint dst, long seed) {
        List<LmrTriplet> out = List.of(from.seg(100, 700), from.seg(1000, 1), from.seg(2000, 1299));
        List<LmrTriplet> in = List.of(to.seg(8001, 333), to.seg(9000, 1), to.seg(10000, 5000));
        fill(from.buf, 0, 4096, seed);
        zero(to.buf, 8000, 8000);
        dst.postRecv(in, seed, DEFAULT);
        src.postSend(out, seed, DEFAULT);
        assertEquals(
                2000, nextDto(from.req, src, seed, DtoCompletionStatus.SUCCESS).transferredLength());
        assertEquals(
                2000, nextDto(to.recv, dst, seed, DtoCompletionStatus.SUCCESS).transferredLength());
        byte[] sent = gather(from, out);
        assertArrayEquals(
                sent,
                Arrays.copyOf(gather(to, in), 2000),
                "the message scattered in order over the receive's segments");
        assertArrayEquals(
                new byte[333 + 1 + 5000 - 2000],
                Arrays.copyOfRange(gather(to, in), 2000, 333 + 1 + 5000),
                "nothing beyond the message is written");
    }

    /** Disconnects {@code a} (on node a) and {@code b} (on node b) from one side: DISCONNECTED on both connection EVDs. */
    private static void disconnect(Pair p, Endpoint a, Endpoint b, CloseFlag flag, boolean fromA) {
        (fromA ? a : b).disconnect(flag);
        expect(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, a);
        expect(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, b);
        assertState(EndpointState.DISCONNECTED, a);
        assertState(EndpointState.DISCONNECTED, b);
    }

    // ------------------------------------------------------------------ connection establishment

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName(
            "dat_psp_create(3DAT), dat_ep_connect(3DAT), dat_cr_query(3DAT), dat_cr_accept(3DAT), dat_evd_wait(3DAT): "
                    + "a consumer EP accepts through a PSP; max_private_data_size bytes reach each side; data flows both ways")
    void shouldConnectAndCarryDataWhenConsumerEndpointAcceptsThroughPsp(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            int max = p.a.ia.query().providerAttributes().maxPrivateDataSize();
            byte[] requestData = pattern(max, 1);
            byte[] acceptData = pattern(max, 2);
            Endpoint active = p.a.ep();
            Endpoint passive = p.b.ep();
            long q = p.qual();
            PublicServicePoint psp = p.b.own(p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER));

            connect(active, p.b, q, requestData);
            ConnectionRequestEvent req = next(p.b.conn, ConnectionRequestEvent.class);
            assertSame(p.b.conn, req.evd());
            assertSame(psp, req.servicePoint().orElseThrow(), "the request names its PSP");
            assertEquals(q, req.connQual());
            assertEquals(p.b.address(), req.localIaAddress());
            ConnectionRequest cr = req.cr();
            CrParams params = cr.query();
            assertArrayEquals(
                    requestData, params.privateData(), "dat_cr_query(3DAT): the requester's private data, whole");
            assertEquals(p.a.address(), params.remoteIaAddress());
            assertTrue(params.localEp().isEmpty(), "a consumer PSP gives no EP");

            cr.accept(passive, acceptData);
            ConnectionEvent up = expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            assertArrayEquals(
                    acceptData,
                    up.privateData(),
                    "dat_evd_wait(3DAT): the active side gets the accepter's private data");
            ConnectionEvent upPassive = expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, passive);
            assertEquals(0, upPassive.privateDataSize(), "dat_evd_wait(3DAT): none on the passive side");
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, cr::query);
            assertState(EndpointState.CONNECTED, active);
            assertState(EndpointState.CONNECTED, passive);
            EpParams ap = active.query();
            assertEquals(Optional.of(p.b.address()), ap.remoteIaAddress());
            assertEquals(q, ap.remotePortQual().orElseThrow());
            assertEquals(Optional.of(p.a.address()), passive.query().remoteIaAddress());
            assertEquals(
                    params.remotePortQual(), passive.query().remotePortQual().orElseThrow());

            exchange(p.a, active, p.b, passive, 10);
            exchange(p.a, active, p.b, passive, 20);
            disconnect(p, active, passive, CloseFlag.GRACEFUL, false);
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_psp_create(3DAT) DAT_PSP_PROVIDER, dat_ep_modify(3DAT), dat_cr_accept(3DAT): the request comes "
            + "with the provider's EP (TENTATIVE_CONNECTION_PENDING, no PZ, no EVDs); given a PZ and EVDs it accepts "
            + "and carries data")
    void shouldConnectWhenProviderEndpointIsGivenPzAndEvdsBeforeAccept(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            long q = p.qual();
            p.b.own(p.b.ia.createPsp(q, p.b.conn, PspFlag.PROVIDER));
            Endpoint active = p.a.ep();
            connect(active, p.b, q, new byte[] {7, 7, 7});
            ConnectionRequestEvent req = next(p.b.conn, ConnectionRequestEvent.class);
            CrParams params = req.cr().query();
            assertArrayEquals(new byte[] {7, 7, 7}, params.privateData());
            Endpoint provided =
                    params.localEp().orElseThrow(() -> new AssertionError("dat_cr_query(3DAT): no provider EP"));
            EpParams before = provided.query();
            assertEquals(EndpointState.TENTATIVE_CONNECTION_PENDING, before.state());
            assertTrue(
                    before.pz().isEmpty()
                            && before.recvEvd().isEmpty()
                            && before.requestEvd().isEmpty()
                            && before.connectEvd().isEmpty(),
                    "dat_psp_create(3DAT): DAT_HANDLE_NULL PZ and EVDs: " + before);

            provided.modify(EpModify.builder()
                    .pz(p.b.pz)
                    .recvEvd(p.b.recv)
                    .requestEvd(p.b.req)
                    .connectEvd(p.b.conn)
                    .build());
            EpParams after = provided.query();
            assertEquals(Optional.of(p.b.pz), after.pz());
            assertEquals(Optional.of(p.b.recv), after.recvEvd());
            assertEquals(Optional.of(p.b.req), after.requestEvd());
            assertEquals(Optional.of(p.b.conn), after.connectEvd());
            assertEquals(EndpointState.TENTATIVE_CONNECTION_PENDING, after.state());
            // A receive posted before the accept is there for the first message.
            zero(p.b.buf, 0, 64);
            provided.postRecv(p.b.iov(0, 64), 1, DEFAULT);

            req.cr().accept(null, new byte[] {9});
            assertArrayEquals(
                    new byte[] {9},
                    expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active)
                            .privateData());
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, provided);
            assertState(EndpointState.CONNECTED, provided);
            p.b.own(provided);

            fill(p.a.buf, 0, 64, 3);
            active.postSend(p.a.iov(0, 64), 2, DEFAULT);
            nextDto(p.a.req, active, 2, DtoCompletionStatus.SUCCESS);
            assertEquals(
                    64,
                    nextDto(p.b.recv, provided, 1, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(p.a.buf, 0, 64), bytes(p.b.buf, 0, 64));
            exchange(p.a, active, p.b, provided, 30);

            disconnect(p, active, provided, CloseFlag.ABRUPT, true);
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName(
            "dat_rsp_create(3DAT), dat_cr_accept(3DAT): the reserved EP (RESERVED, then PASSIVE_CONNECTION_PENDING "
                    + "with the request) accepts with DAT_HANDLE_NULL; private data both ways; data flows")
    void shouldConnectWhenReservedEndpointAcceptsThroughRsp(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint active = p.a.ep();
            Endpoint reserved = p.b.ep();
            long q = p.qual();
            ReservedServicePoint rsp = p.b.own(p.b.ia.createRsp(q, reserved, p.b.conn));
            assertState(EndpointState.RESERVED, reserved);
            connect(active, p.b, q, new byte[] {1, 2, 3, 4});
            ConnectionRequestEvent req = next(p.b.conn, ConnectionRequestEvent.class);
            assertEquals(q, req.connQual());
            CrParams params = req.cr().query();
            assertArrayEquals(new byte[] {1, 2, 3, 4}, params.privateData());
            assertSame(reserved, params.localEp().orElseThrow(), "the RSP's request names its EP");
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);

            req.cr().accept(null, new byte[] {5, 6});
            assertArrayEquals(
                    new byte[] {5, 6},
                    expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active)
                            .privateData());
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, reserved);
            exchange(p.a, active, p.b, reserved, 40);

            disconnect(p, active, reserved, CloseFlag.GRACEFUL, true);
            p.b.disown(rsp);
            rsp.free();
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_cr_reject(3DAT), dat_ep_connect(3DAT): a rejected request (whose private data the passive side "
            + "saw) is PEER_REJECTED with no private data (DAT 1.2's reject carries none) and the active EP "
            + "DISCONNECTED; a rejected RSP EP is UNCONNECTED and usable; both connect after a reset")
    void shouldReportPeerRejectedWhenRequestIsRejected(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint active = p.a.ep();
            long q = p.qual();
            p.b.own(p.b.ia.createPsp(q, p.b.conn, PspFlag.CONSUMER));
            connect(active, p.b, q, new byte[] {42, 43});
            ConnectionRequest cr = next(p.b.conn, ConnectionRequestEvent.class).cr();
            assertArrayEquals(new byte[] {42, 43}, cr.query().privateData());
            cr.reject();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, cr::query);
            ConnectionEvent rejected = expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
            assertEquals(0, rejected.privateDataSize());
            assertState(EndpointState.DISCONNECTED, active);

            // Through an RSP: the reserved EP is the consumer's again after the reject.
            Endpoint reserved = p.b.ep();
            long rq = p.qual();
            ReservedServicePoint rsp = p.b.ia.createRsp(rq, reserved, p.b.conn);
            active.reset();
            connect(active, p.b, rq, new byte[] {44});
            ConnectionRequest rcr = next(p.b.conn, ConnectionRequestEvent.class).cr();
            assertState(EndpointState.PASSIVE_CONNECTION_PENDING, reserved);
            rcr.reject();
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED, active);
            assertState(EndpointState.UNCONNECTED, reserved);
            rsp.free();
            assertState(EndpointState.UNCONNECTED, reserved);

            // Both EPs connect: the rejected one after a reset, the formerly reserved one through the PSP.
            active.reset();
            connect(active, p.b, q, null);
            next(p.b.conn, ConnectionRequestEvent.class).cr().accept(reserved, null);
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, active);
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, reserved);
            exchange(p.a, active, p.b, reserved, 50);
            disconnect(p, active, reserved, CloseFlag.ABRUPT, false);
            assertNoEvent(p.a.conn);
            assertNoEvent(p.b.conn);
            p.closeGracefully();
        }
    }

    // ------------------------------------------------------------------ send and receive

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT): messages of 0 to 20000 bytes both ways, gathered "
            + "from and scattered over several segments, complete in order with their lengths, byte for byte")
    void shouldCarryMessagesByteForByteWhenReceivesArePostedToTheEndpoint(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ep();
            connectThroughPsp(p, ea, eb);
            int[] lengths = {0, 1, 63, 4096, 4097, 20000, 333};
            for (Node to : List.of(p.b, p.a)) {
                Node from = to == p.b ? p.a : p.b;
                Endpoint src = to == p.b ? ea : eb;
                Endpoint dst = to == p.b ? eb : ea;
                zero(to.buf, 0, BUF);
                List<List<LmrTriplet>> ins = new ArrayList<>();
                for (int i = 0; i < lengths.length; i++) {
                    int base = 100_000 + i * 21_000;
                    List<LmrTriplet> in = i == 0
                            ? List.of()
                            : List.of(to.seg(base, 7), to.seg(base + 100, 4096), to.seg(base + 4300, 16_500));
                    ins.add(in);
                    dst.postRecv(in, 100 + i, DEFAULT);
                }
                List<List<LmrTriplet>> outs = new ArrayList<>();
                for (int i = 0; i < lengths.length; i++) {
                    int len = lengths[i];
                    int base = i * 30_000;
                    fill(from.buf, base, 30_000, 1000L * i + (to == p.b ? 1 : 2));
                    List<LmrTriplet> out = len == 0
                            ? List.of()
                            : len <= 3
                                    ? List.of(from.seg(base, len))
                                    : List.of(
                                            from.seg(base, len / 3),
                                            from.seg(base + 10_000, len / 3),
                                            from.seg(base + 20_000, len - 2 * (len / 3)));
                    outs.add(out);
                    src.postSend(out, 200 + i, DEFAULT);
                }
                for (int i = 0; i < lengths.length; i++) {
                    assertEquals(
                            lengths[i],
                            nextDto(from.req, src, 200 + i, DtoCompletionStatus.SUCCESS)
                                    .transferredLength());
                }
                for (int i = 0; i < lengths.length; i++) {
                    assertEquals(
                            lengths[i],
                            nextDto(to.recv, dst, 100 + i, DtoCompletionStatus.SUCCESS)
                                    .transferredLength(),
                            "receive " + i + " gets message " + i + ", in order");
                    byte[] sent = gather(from, outs.get(i));
                    assertArrayEquals(sent, Arrays.copyOf(gather(to, ins.get(i)), sent.length), "message " + i);
                }
            }
            assertNoEvent(p.a.recv);
            assertNoEvent(p.b.recv);
            disconnect(p, ea, eb, CloseFlag.GRACEFUL, true);
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_ep_create_with_srq(3DAT), dat_srq_post_recv(3DAT): three EPs share one SRQ; each message lands "
            + "in an SRQ buffer, completes on the recv EVD naming the EP it arrived on, in its connection's order, "
            + "byte for byte; the SRQ is empty after")
    void shouldDeliverEveryMessageThroughOneSrqWhenSeveralEndpointsShareIt(EndToEndFabric fabric) {
        final int eps = 3;
        final int perEp = 12;
        final int slot = 1024;
        try (Pair p = new Pair(fabric)) {
            SharedReceiveQueue srq = p.b.own(p.b.ia.createSrq(p.b.pz, new SrqAttributes(eps * perEp, 2, 0)));
            List<Endpoint> senders = new ArrayList<>();
            List<Endpoint> receivers = new ArrayList<>();
            for (int i = 0; i < eps; i++) {
                senders.add(p.a.ep());
                receivers.add(p.b.own(
                        p.b.ia.createEndpointWithSrq(p.b.pz, p.b.recv, p.b.req, p.b.conn, srq, attrs().build())));
                assertEquals(Optional.of(srq), receivers.get(i).query().srq());
                connectThroughPsp(p, senders.get(i), receivers.get(i));
            }
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.NO_SUBTYPE,
                    () -> receivers.get(0).postRecv(p.b.iov(0, 8), 1, DEFAULT)); // S3 SILENT: receives go to the SRQ
            zero(p.b.buf, 0, eps * perEp * slot);
            for (int k = 0; k < eps * perEp; k++) {
                srq.postRecv(List.of(p.b.seg(k * slot, 300), p.b.seg(k * slot + 300, slot - 300)), k);
            }
            assertEquals(eps * perEp, srq.query().availableDtoCount());

            Map<Long, Integer> lengths = new HashMap<>();
            for (int seq = 0; seq < perEp; seq++) {
                for (int i = 0; i < eps; i++) {
                    int len = 8 + (seq * 37 + i * 101) % (slot - 8);
                    int off = (i * perEp + seq) * slot;
                    fill(p.a.buf, off, len, i * 1000L + seq);
                    p.a.buf.put(off, (byte) i).put(off + 1, (byte) seq);
                    long cookie = i * 1000L + seq;
                    lengths.put(cookie, len);
                    senders.get(i).postSend(p.a.iov(off, len), cookie, DEFAULT);
                }
            }
            Set<Long> sent = new HashSet<>();
            for (int n = 0; n < eps * perEp; n++) {
                DtoCompletionEvent e = next(p.a.req, DtoCompletionEvent.class);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "" + e);
                assertTrue(sent.add(e.userCookie()), () -> "cookie completed twice: " + e);
                assertEquals(senders.get((int) (e.userCookie() / 1000)), e.ep());
                assertEquals((long) lengths.get(e.userCookie()), e.transferredLength());
            }
            int[] nextSeq = new int[eps];
            Set<Long> buffers = new HashSet<>();
            for (int n = 0; n < eps * perEp; n++) {
                DtoCompletionEvent e = next(p.b.recv, DtoCompletionEvent.class);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "" + e);
                assertSame(p.b.recv, e.evd());
                int i = receivers.indexOf(e.ep());
                assertTrue(i >= 0, () -> "the completion names an EP of the SRQ: " + e);
                assertTrue(buffers.add(e.userCookie()), () -> "SRQ buffer completed twice: " + e);
                int at = (int) e.userCookie() * slot;
                assertEquals(i, p.b.buf.get(at), "the message arrived on the EP connected to its sender");
                int seq = p.b.buf.get(at + 1);
                assertEquals(nextSeq[i]++, seq, "dat_srq_post_recv(3DAT): in the order of its connection's sends");
                int len = lengths.get(i * 1000L + seq);
                assertEquals(len, e.transferredLength());
                assertArrayEquals(bytes(p.a.buf, (i * perEp + seq) * slot, len), bytes(p.b.buf, at, len));
            }
            assertEquals(0, srq.query().availableDtoCount());
            assertEquals(0, srq.query().outstandingDtoCount());
            assertNoEvent(p.b.recv);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);

            for (int i = 0; i < eps; i++) {
                disconnect(
                        p,
                        senders.get(i),
                        receivers.get(i),
                        i % 2 == 0 ? CloseFlag.ABRUPT : CloseFlag.GRACEFUL,
                        i == 1);
            }
            p.closeGracefully();
        }
    }

    // ------------------------------------------------------------------ RDMA

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_ep_post_rdma_write(3DAT), dat_ep_post_rdma_read(3DAT): multi-segment LMR triplets from two "
            + "LMRs against the peer's rmr_context, both ways; the target range exactly, byte for byte")
    void shouldMoveDataByteForByteWhenRdmaWriteAndReadUseLmrTriplets(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ep();
            connectThroughPsp(p, ea, eb);
            for (Node from : List.of(p.a, p.b)) {
                Node to = from == p.a ? p.b : p.a;
                Endpoint ep = from == p.a ? ea : eb;
                ByteBuffer extra = ByteBuffer.allocateDirect(8192);
                LocalMemoryRegion second = from.own(from.ia.createLmr(
                        new RegionDescription.Virtual(extra),
                        from.pz,
                        EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE)));
                fill(from.buf, 0, 8192, 60);
                fill(extra, 0, 8192, 61);
                List<LmrTriplet> out = List.of(
                        from.seg(10, 1000),
                        new LmrTriplet(second.lmrContext(), second.registeredAddress() + 4000, 3000),
                        from.seg(5000, 2500));
                byte[] written = new byte[6500];
                ByteBuffer.wrap(written)
                        .put(bytes(from.buf, 10, 1000))
                        .put(bytes(extra, 4000, 3000))
                        .put(bytes(from.buf, 5000, 2500));
                zero(to.buf, 50_000, 10_000);
                ep.postRdmaWrite(out, 1, to.remote(51_000, 6500), DEFAULT);
                assertEquals(
                        6500,
                        nextDto(from.req, ep, 1, DtoCompletionStatus.SUCCESS).transferredLength());
                assertArrayEquals(written, bytes(to.buf, 51_000, 6500));
                assertArrayEquals(new byte[1000], bytes(to.buf, 50_000, 1000), "nothing before the target range");
                assertArrayEquals(new byte[2500], bytes(to.buf, 57_500, 2500), "nothing after it");

                fill(to.buf, 70_000, 10_000, 62);
                zero(from.buf, 20_000, 20_000);
                zero(extra, 0, 8192);
                List<LmrTriplet> in = List.of(
                        new LmrTriplet(second.lmrContext(), second.registeredAddress() + 100, 2000),
                        from.seg(20_000, 1),
                        from.seg(30_000, 6999));
                ep.postRdmaRead(in, 2, to.remote(70_500, 9000), DEFAULT);
                assertEquals(
                        9000,
                        nextDto(from.req, ep, 2, DtoCompletionStatus.SUCCESS).transferredLength());
                byte[] read = new byte[9000];
                ByteBuffer.wrap(read)
                        .put(bytes(extra, 100, 2000))
                        .put(bytes(from.buf, 20_000, 1))
                        .put(bytes(from.buf, 30_000, 6999));
                assertArrayEquals(
                        bytes(to.buf, 70_500, 9000), read, "the read scattered in order over the local segments");
                assertArrayEquals(new byte[100], bytes(extra, 0, 100));
                assertArrayEquals(new byte[1000], bytes(from.buf, 36_999, 1000), "nothing beyond the last segment");
            }
            assertNoEvent(p.a.recv);
            assertNoEvent(p.b.recv);
            disconnect(p, ea, eb, CloseFlag.GRACEFUL, false);
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_rmr_bind(3DAT): an RMR bound through an EP (DAT_RMR_BIND_COMPLETION_EVENT on its request EVD) "
            + "opens exactly its window of an LMR without remote privileges to the peer's RDMA Write and Read; "
            + "unbound, its context fails remotely (DAT_DTO_ERR_REMOTE_ACCESS) and nothing is written")
    void shouldGrantRemoteAccessThroughBoundRmrUntilUnbound(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ep();
            connectThroughPsp(p, ea, eb);
            ByteBuffer target = ByteBuffer.allocateDirect(8192);
            LocalMemoryRegion local = p.b.own(p.b.ia.createLmr(
                    new RegionDescription.Virtual(target),
                    p.b.pz,
                    EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE)));
            assertTrue(local.rmrContext().isEmpty(), "dat_lmr_create(3DAT): no remote privilege, no rmr_context");
            RemoteMemoryRegion rmr = p.b.own(p.b.pz.createRmr());
            assertTrue(rmr.query().binding().isEmpty());

            LmrTriplet window = new LmrTriplet(local.lmrContext(), local.registeredAddress() + 1024, 4096);
            EnumSet<MemoryPrivilege> remote = EnumSet.of(MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE);
            int context = rmr.bind(window, remote, eb, 77, DEFAULT);
            RmrBindCompletionEvent bound = next(p.b.req, RmrBindCompletionEvent.class);
            assertSame(p.b.req, bound.evd(), "dat_rmr_bind(3DAT): the completion goes to the EP's request EVD");
            assertSame(rmr, bound.rmr());
            assertEquals(77, bound.userCookie());
            assertEquals(DtoCompletionStatus.SUCCESS, bound.status());
            RmrBinding binding = rmr.query().binding().orElseThrow();
            assertEquals(window, binding.lmrTriplet());
            assertEquals(remote, binding.privileges());
            assertEquals(context, binding.rmrContext());
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, local::free);

            // The peer writes three segments into the window and reads them back into two.
            fill(p.a.buf, 0, 4096, 70);
            List<LmrTriplet> out = List.of(p.a.seg(0, 500), p.a.seg(1000, 700), p.a.seg(2000, 1300));
            ea.postRdmaWrite(out, 1, new RmrTriplet(context, window.virtualAddress() + 100, 2500), DEFAULT);
            assertEquals(
                    2500, nextDto(p.a.req, ea, 1, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(gather(p.a, out), bytes(target, 1024 + 100, 2500));
            assertArrayEquals(new byte[1124], bytes(target, 0, 1124), "nothing before the written range");
            zero(p.a.buf, 10_000, 10_000);
            List<LmrTriplet> in = List.of(p.a.seg(10_000, 1200), p.a.seg(15_000, 1300));
            ea.postRdmaRead(in, 2, new RmrTriplet(context, window.virtualAddress() + 100, 2500), DEFAULT);
            assertEquals(
                    2500, nextDto(p.a.req, ea, 2, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(target, 1124, 2500), gather(p.a, in));

            rmr.unbind(eb, 78, DEFAULT);
            RmrBindCompletionEvent unbound = next(p.b.req, RmrBindCompletionEvent.class);
            assertSame(rmr, unbound.rmr());
            assertEquals(78, unbound.userCookie());
            assertEquals(DtoCompletionStatus.SUCCESS, unbound.status());
            assertTrue(rmr.query().binding().isEmpty(), "dat_rmr_bind(3DAT): a zero-length bind unbinds");
            byte[] before = bytes(target, 0, 8192);
            fill(p.a.buf, 0, 512, 71);
            ea.postRdmaWrite(p.a.iov(0, 512), 3, new RmrTriplet(context, window.virtualAddress(), 512), DEFAULT);
            nextDto(p.a.req, ea, 3, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            assertArrayEquals(before, bytes(target, 0, 8192), "a refused RDMA Write writes nothing");
            expect(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN, ea);
            assertState(EndpointState.DISCONNECTED, ea);
            // The target's QP took the access error too (IBA responder class C error, QP access error): the
            // connection is broken there as well, and the IA's async EVD names the EP (dat_rmr_free(3DAT) says only
            // "the connection breaks"; the events are the provider's).
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_BROKEN, eb);
            AsyncErrorEvent async = next(p.b.ia.query().asyncEvd().orElseThrow(), AsyncErrorEvent.class);
            assertEquals(EventNumber.ASYNC_ERROR_EP_BROKEN, async.eventNumber());
            assertSame(eb, async.handle());
            assertEquals(AsyncErrorReason.EP_TRANSFER_TO_ERROR, async.reason());
            assertState(EndpointState.DISCONNECTED, eb);
            local.free(); // no RMR is bound to it any more
            p.b.disown(local);

            eb.disconnect(CloseFlag.ABRUPT); // a no-op on a DISCONNECTED EP
            assertNoEvent(p.b.conn);
            assertNoEvent(p.a.conn);
            p.closeGracefully();
        }
    }

    // ------------------------------------------------------------------ disconnect and reset

    static Stream<Arguments> fabricsAndFlags() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (EndToEndFabric f : EndToEndFabric.values()) {
            for (CloseFlag c : List.of(CloseFlag.GRACEFUL, CloseFlag.ABRUPT)) {
                b.add(Arguments.of(f, c));
            }
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("fabricsAndFlags")
    @DisplayName("dat_ep_disconnect(3DAT): with requests in flight, graceful lets them complete successfully before "
            + "the DISCONNECTED event (on the EVD that takes both), abrupt completes each once (after a failure, only "
            + "failures); DISCONNECTED on both sides; receives left at either side flushed, in order")
    void shouldDisconnectBothSidesWhenRequestsAreInFlight(EndToEndFabric fabric, CloseFlag flag) {
        try (Pair p = new Pair(fabric)) {
            EventDispatcher both = p.a.own(p.a.ia.createEvd(64, null, EnumSet.of(EvdFlag.DTO, EvdFlag.CONNECTION)));
            Endpoint ea = p.a.own(p.a.ia.createEndpoint(p.a.pz, p.a.recv, both, both, attrs().build()));
            Endpoint eb = p.b.ep();
            connectThroughPsp(p, ea, both, eb);

            for (int i = 0; i < 3; i++) {
                ea.postRecv(p.a.iov(60_000 + i * 100, 100), 300 + i, DEFAULT);
            }
            for (int i = 0; i < 4; i++) {
                eb.postRecv(p.b.iov(i * 4096, 4096), 400 + i, DEFAULT);
            }
            fill(p.a.buf, 0, 32_768, 80);
            zero(p.b.buf, 0, 100_000);
            List<Long> cookies = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                if (i % 3 == 1) {
                    ea.postSend(p.a.iov(i * 4096, 4096), i, DEFAULT);
                } else {
                    ea.postRdmaWrite(p.a.iov(i * 4096, 4096), i, p.b.remote(40_000 + i * 4096, 4096), DEFAULT);
                }
                cookies.add((long) i);
            }
            ea.disconnect(flag);
            if (flag == CloseFlag.ABRUPT) {
                assertState(EndpointState.DISCONNECTED, ea);
            }

            List<Long> done = new ArrayList<>();
            boolean failed = false;
            DatEvent e;
            while ((e = next(both)) instanceof DtoCompletionEvent d) {
                assertSame(ea, d.ep());
                done.add(d.userCookie());
                if (flag == CloseFlag.GRACEFUL) {
                    assertEquals(
                            DtoCompletionStatus.SUCCESS,
                            d.status(),
                            () -> "graceful: in-flight requests complete: " + d);
                } else if (d.status() != DtoCompletionStatus.SUCCESS) {
                    assertEquals(DtoCompletionStatus.ERR_FLUSHED, d.status(), () -> "" + d);
                    failed = true;
                } else {
                    assertFalse(failed, () -> "dat_ep_disconnect(3DAT): after a failed DTO all later ones fail: " + d);
                }
            }
            ConnectionEvent down = assertInstanceOf(ConnectionEvent.class, e);
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, down.eventNumber());
            assertSame(ea, down.ep());
            assertEquals(cookies, done, "every request completed once, in post order, before DISCONNECTED");
            expect(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED, eb);
            assertState(EndpointState.DISCONNECTED, ea);
            assertState(EndpointState.DISCONNECTED, eb);
            for (int i = 0; i < 8; i++) {
                if (flag == CloseFlag.GRACEFUL && i % 3 != 1) {
                    assertArrayEquals(
                            bytes(p.a.buf, i * 4096, 4096), bytes(p.b.buf, 40_000 + i * 4096, 4096), "write " + i);
                }
            }

            // The receiving side: one receive per send that got through, in order, then the rest flushed.
            int sends = 0;
            for (int i = 0; i < 4; i++) {
                DtoCompletionEvent r = next(p.b.recv, DtoCompletionEvent.class);
                assertSame(eb, r.ep());
                assertEquals(400 + i, r.userCookie(), "receives complete in posting order");
                if (r.status() == DtoCompletionStatus.SUCCESS) {
                    int sendIndex = 1 + 3 * sends++;
                    assertEquals(4096, r.transferredLength());
                    assertArrayEquals(
                            bytes(p.a.buf, sendIndex * 4096, 4096),
                            bytes(p.b.buf, i * 4096, 4096),
                            "send " + sendIndex);
                } else {
                    assertEquals(DtoCompletionStatus.ERR_FLUSHED, r.status(), () -> "" + r);
                }
            }
            if (flag == CloseFlag.GRACEFUL) {
                assertEquals(3, sends, "graceful: every send reached its receive");
            }
            for (int i = 0; i < 3; i++) {
                nextDto(p.a.recv, ea, 300 + i, DtoCompletionStatus.ERR_FLUSHED);
            }
            assertNoEvent(both);
            assertNoEvent(p.a.recv);
            assertNoEvent(p.b.recv);
            ea.disconnect(flag); // dat_ep_disconnect(3DAT): a no-op on a DISCONNECTED EP
            assertNoEvent(both);
            p.closeGracefully();
        }
    }

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_ep_reset(3DAT): the same two EPs, reset after each disconnect, connect again (through a PSP, "
            + "the other way round, through an RSP) and carry data each time")
    void shouldReconnectTheSameEndpointsWhenResetAfterDisconnect(EndToEndFabric fabric) {
        try (Pair p = new Pair(fabric)) {
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ep();
            for (int round = 0; round < 3; round++) {
                switch (round) {
                    case 0 -> connectThroughPsp(p, ea, eb);
                    case 1 -> {
                        long q = p.qual();
                        PublicServicePoint psp = p.a.ia.createPsp(q, p.a.conn, PspFlag.CONSUMER);
                        connect(eb, p.a, q, new byte[] {(byte) round});
                        ConnectionRequest cr =
                                next(p.a.conn, ConnectionRequestEvent.class).cr();
                        assertArrayEquals(new byte[] {(byte) round}, cr.query().privateData());
                        cr.accept(ea, null);
                        expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, eb);
                        expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, ea);
                        psp.free();
                    }
                    default -> {
                        long q = p.qual();
                        ReservedServicePoint rsp = p.b.ia.createRsp(q, eb, p.b.conn);
                        connect(ea, p.b, q, null);
                        next(p.b.conn, ConnectionRequestEvent.class).cr().accept(null, null);
                        expect(p.a.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, ea);
                        expect(p.b.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED, eb);
                        rsp.free();
                    }
                }
                exchange(p.a, ea, p.b, eb, 100 + 10L * round);
                // A receive left posted is flushed by the disconnect; the reset finds nothing outstanding.
                eb.postRecv(p.b.iov(0, 16), 900 + round, DEFAULT);
                disconnect(p, ea, eb, round == 1 ? CloseFlag.ABRUPT : CloseFlag.GRACEFUL, round != 1);
                nextDto(p.b.recv, eb, 900 + round, DtoCompletionStatus.ERR_FLUSHED);
                assertDat(
                        DatReturnType.INVALID_STATE,
                        DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                        () -> connect(ea, p.b, 1, null));
                ea.reset();
                eb.reset();
                for (Endpoint ep : List.of(ea, eb)) {
                    EpParams q = ep.query();
                    assertEquals(EndpointState.UNCONNECTED, q.state());
                    assertTrue(
                            q.remoteIaAddress().isEmpty() && q.remotePortQual().isEmpty(), () -> "after reset: " + q);
                    assertTrue(ep.status().recvIdle() && ep.status().requestIdle());
                }
            }
            assertNoEvent(p.a.recv);
            assertNoEvent(p.b.recv);
            assertNoEvent(p.a.req);
            assertNoEvent(p.b.req);
            p.closeGracefully();
        }
    }

    // ------------------------------------------------------------------ many in flight

    /** One direction of one connection in the mix: sender's EP and node, receiver's EP and node, its memory. */
    private static final class Flow {
        final int index;
        final Node from;
        final Endpoint src;
        final Node to;
        final Endpoint dst;
        /** Per request slot: the sender's source/destination and, at the receiver, the write target and read source. */
        final int srcBase;

        final int recvBase;
        final int writeBase;
        final int readBase;
        final Deque<Integer> freeSlots = new ArrayDeque<>();
        final Map<Long, Op> inFlight = new HashMap<>();
        final Deque<Integer> freeRecvSlots = new ArrayDeque<>();
        final Map<Long, Integer> recvSlotOf = new HashMap<>();
        /** Sends whose receive has not completed yet, in order: each completed receive must be the oldest. */
        final Deque<Op> sendsToArrive = new ArrayDeque<>();

        long nextCookie;
        long nextRecvCookie;

        Flow(int index, Node from, Endpoint src, Node to, Endpoint dst, int senderArea, int receiverArea) {
            this.index = index;
            this.from = from;
            this.src = src;
            this.to = to;
            this.dst = dst;
            this.srcBase = senderArea;
            this.recvBase = receiverArea;
            this.writeBase = receiverArea + SLOTS * SLOT;
            this.readBase = receiverArea + 2 * SLOTS * SLOT;
            for (int i = 0; i < SLOTS; i++) {
                freeSlots.add(i);
                freeRecvSlots.add(i);
            }
            this.nextCookie = index * 1_000_000L;
            this.nextRecvCookie = index * 1_000_000L + 500_000;
        }
    }

    private enum Kind {
        SEND,
        WRITE,
        READ
    }

    /** A request in flight. */
    private record Op(Kind kind, long cookie, int slot, int length, long seed) {}

    private static final int SLOTS = 32;
    private static final int SLOT = 512;

    @ParameterizedTest
    @EnumSource(EndToEndFabric.class)
    @DisplayName("dat_ep_post_*(3DAT), dat_evd_wait(3DAT): a seeded mix of sends, RDMA Writes and RDMA Reads on two "
            + "connections both ways, up to max_request_dtos in flight per EP: every cookie completes exactly once, "
            + "with its length and its data byte for byte; receives complete in send order")
    void shouldCompleteEveryCookieExactlyOnceWhenManyDtosAreInFlight(EndToEndFabric fabric) {
        final int total = 1200;
        try (Pair p = new Pair(fabric)) {
            Endpoint a1 = p.a.ep();
            Endpoint b1 = p.b.ep();
            Endpoint a2 = p.a.ep();
            Endpoint b2 = p.b.ep();
            connectThroughPsp(p, a1, b1);
            connectThroughPsp(p, a2, b2);
            int area = SLOTS * SLOT;
            List<Flow> streams = List.of(
                    new Flow(0, p.a, a1, p.b, b1, 0, 2 * area),
                    new Flow(1, p.b, b1, p.a, a1, 0, 2 * area),
                    new Flow(2, p.a, a2, p.b, b2, area, 5 * area),
                    new Flow(3, p.b, b2, p.a, a2, area, 5 * area));
            Random rnd = new Random(0xE2E_5EEDL);
            Set<Long> completed = new HashSet<>();
            Set<Long> received = new HashSet<>();
            int[] counts = new int[Kind.values().length];

            for (int n = 0; n < total; n++) {
                Flow s = streams.get(rnd.nextInt(streams.size()));
                Kind kind = Kind.values()[rnd.nextInt(Kind.values().length)];
                int length = kind == Kind.READ ? 1 + rnd.nextInt(SLOT) : rnd.nextInt(SLOT + 1);
                while (s.freeSlots.isEmpty()) {
                    takeRequest(s.from, streams, completed);
                }
                if (kind == Kind.SEND) {
                    while (s.freeRecvSlots.isEmpty()) {
                        takeReceive(s.to, streams, received);
                    }
                    int rs = s.freeRecvSlots.poll();
                    long rc = s.nextRecvCookie++;
                    s.recvSlotOf.put(rc, rs);
                    int at = s.recvBase + rs * SLOT;
                    zero(s.to.buf, at, SLOT);
                    s.dst.postRecv(List.of(s.to.seg(at, 100), s.to.seg(at + 100, SLOT - 100)), rc, DEFAULT);
                }
                int slot = s.freeSlots.poll();
                long cookie = s.nextCookie++;
                long seed = rnd.nextLong();
                Op op = new Op(kind, cookie, slot, length, seed);
                int at = s.srcBase + slot * SLOT;
                List<LmrTriplet> iov = split(s.from, at, length, rnd.nextInt(3) + 1);
                switch (kind) {
                    case SEND -> {
                        fill(s.from.buf, at, length, seed);
                        s.sendsToArrive.add(op);
                        s.src.postSend(iov, cookie, DEFAULT);
                    }
                    case WRITE -> {
                        fill(s.from.buf, at, length, seed);
                        zero(s.to.buf, s.writeBase + slot * SLOT, SLOT);
                        s.src.postRdmaWrite(iov, cookie, s.to.remote(s.writeBase + slot * SLOT, length), DEFAULT);
                    }
                    default -> {
                        fill(s.to.buf, s.readBase + slot * SLOT, length, seed);
                        zero(s.from.buf, at, SLOT);
                        s.src.postRdmaRead(iov, cookie, s.to.remote(s.readBase + slot * SLOT, length), DEFAULT);
                    }
                }
                s.inFlight.put(cookie, op);
                counts[kind.ordinal()]++;
            }
            for (Flow s : streams) {
                while (!s.inFlight.isEmpty()) {
                    takeRequest(s.from, streams, completed);
                }
            }
            for (Flow s : streams) {
                while (!s.sendsToArrive.isEmpty()) {
                    takeReceive(s.to, streams, received);
                }
            }
            assertEquals(total, completed.size(), "every request cookie completed exactly once");
            assertEquals(counts[Kind.SEND.ordinal()], received.size(), "every receive completed exactly once");
            for (Kind k : Kind.values()) {
                assertTrue(counts[k.ordinal()] > total / 5, () -> "the mix holds " + k + "s");
            }
            for (Node n : List.of(p.a, p.b)) {
                assertNoEvent(n.req);
                assertNoEvent(n.recv);
            }
            disconnect(p, a1, b1, CloseFlag.GRACEFUL, true);
            disconnect(p, a2, b2, CloseFlag.GRACEFUL, false);
            p.closeGracefully();
        }
    }

    /** {@code length} bytes from {@code at} as up to {@code pieces} segments (none for a zero-length DTO). */
    private static List<LmrTriplet> split(Node n, int at, int length, int pieces) {
        List<LmrTriplet> iov = new ArrayList<>();
        int left = length;
        int off = at;
        for (int i = 0; i < pieces && left > 0; i++) {
            int len = i == pieces - 1 ? left : left / 2;
            if (len > 0) {
                iov.add(n.seg(off, len));
                off += len;
                left -= len;
            }
        }
        if (left > 0) {
            iov.add(n.seg(off, left));
        }
        return iov;
    }

    /** Takes the next request completion of {@code node} and checks it against the stream that posted it. */
    private static void takeRequest(Node node, List<Flow> streams, Set<Long> completed) {
        DtoCompletionEvent e = next(node.req, DtoCompletionEvent.class);
        Flow s = streams.stream()
                .filter(x -> x.from == node && x.src == e.ep())
                .findFirst()
                .orElseThrow(() -> new AssertionError("a completion of no sending EP of " + node + ": " + e));
        Op op = s.inFlight.remove(e.userCookie());
        if (op == null) {
            fail("cookie " + e.userCookie() + " completed but is not in flight (twice, or never posted): " + e);
        }
        assertTrue(completed.add(e.userCookie()));
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "" + e);
        assertEquals(op.length(), e.transferredLength(), () -> "length of " + e);
        int at = s.srcBase + op.slot() * SLOT;
        switch (op.kind()) {
            case WRITE ->
                assertArrayEquals(
                        bytes(s.from.buf, at, op.length()),
                        bytes(s.to.buf, s.writeBase + op.slot() * SLOT, op.length()),
                        () -> "RDMA Write " + op);
            case READ ->
                assertArrayEquals(
                        bytes(s.to.buf, s.readBase + op.slot() * SLOT, op.length()),
                        bytes(s.from.buf, at, op.length()),
                        () -> "RDMA Read " + op);
            default -> {
                // the receive side checks the data of a send
            }
        }
        s.freeSlots.add(op.slot());
    }

    /** Takes the next receive completion of {@code node}: the oldest send of its stream not yet arrived. */
    private static void takeReceive(Node node, List<Flow> streams, Set<Long> received) {
        DtoCompletionEvent e = next(node.recv, DtoCompletionEvent.class);
        Flow s = streams.stream()
                .filter(x -> x.to == node && x.dst == e.ep())
                .findFirst()
                .orElseThrow(() -> new AssertionError("a receive of no receiving EP of " + node + ": " + e));
        assertTrue(received.add(e.userCookie()), () -> "receive completed twice: " + e);
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "" + e);
        Integer slot = s.recvSlotOf.remove(e.userCookie());
        assertNotNull(slot, () -> "a receive not posted: " + e);
        Op send = s.sendsToArrive.poll();
        assertNotNull(send, () -> "a receive completed with no send: " + e);
        assertEquals(
                send.length(), e.transferredLength(), () -> "receives complete in send order: " + e + " for " + send);
        ByteBuffer expected = ByteBuffer.allocate(send.length());
        fill(expected, 0, send.length(), send.seed());
        assertArrayEquals(
                expected.array(), bytes(s.to.buf, s.recvBase + slot * SLOT, send.length()), () -> "send " + send);
        s.freeRecvSlots.add(slot);
    }
}
