package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static io.simrdma.provider.ObjectFixtures.rdmaRead;
import static io.simrdma.provider.ObjectFixtures.rdmaWrite;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.RmrBinding;
import io.simrdma.dat.RmrParams;
import io.simrdma.dat.RmrTriplet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Remote Memory Regions: dat_rmr_create(3DAT), dat_rmr_bind(3DAT) (a zero-length LMR triplet
 * unbinds), dat_rmr_query(3DAT), dat_rmr_free(3DAT). The bound window is used by the peer side
 * {@code a} of a {@link DatPair}; the RMR lives on side {@code b}, over b's 64 KiB LMR.
 */
class RmrTest {

    /** Offset and length of the window in b's LMR. */
    private static final int WIN = 1024;

    private static final int WIN_LEN = 256;

    /** A connected pair whose b endpoint has its own recv EVD, so request_evd is b.dto alone. */
    private static final class Setup {
        final DatPair p;
        final Endpoint ea;
        final Endpoint eb;
        final EventDispatcher bRecv;

        Setup(DatPair p) {
            this.p = p;
            bRecv = p.b.ia.createEvd(16, EnumSet.of(EvdFlag.DTO));
            ea = p.a.ep();
            eb = p.b.ia.createEndpoint(p.b.pz, bRecv, p.b.dto, p.b.conn, null);
            p.connect(ea, eb);
        }

        LmrTriplet window(int offset, int len) {
            return p.b.iov(offset, len).get(0);
        }

        RmrTriplet remote(int rmrContext, int offset, int len) {
            return new RmrTriplet(rmrContext, p.b.lmr.registeredAddress() + offset, len);
        }

        /** Binds {@code rmr} through {@link #eb} and waits for its successful completion. */
        int bind(RemoteMemoryRegion rmr, LmrTriplet t, Set<MemoryPrivilege> privileges, long cookie) {
            int ctx = rmr.bind(t, privileges, eb, cookie, CompletionFlag.defaults());
            bindCompletion(cookie, DtoCompletionStatus.SUCCESS);
            return ctx;
        }

        /** The next event of b's DTO EVD, which must be the bind completion of {@code cookie} with {@code status}. */
        RmrBindCompletionEvent bindCompletion(long cookie, DtoCompletionStatus status) {
            RmrBindCompletionEvent e = DatPair.next(p.b.dto, RmrBindCompletionEvent.class);
            assertEquals(cookie, e.userCookie());
            assertEquals(status, e.status());
            return e;
        }
    }

    private static EnumSet<MemoryPrivilege> remoteRw() {
        return EnumSet.of(MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE);
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_rmr_create(3DAT), dat_rmr_query(3DAT): an RMR of the PZ, unbound (no binding defined)")
    void shouldCreateUnboundRmr(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            assertEquals(HandleType.RMR, rmr.handleType());
            RmrParams q = rmr.query();
            assertSame(p.b.ia, q.ia());
            assertSame(p.b.pz, q.pz());
            assertEquals(Optional.empty(), q.binding());
            rmr.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR, rmr::query);
            ProtectionZone freed = p.b.ia.createPz();
            freed.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, freed::createRmr);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): the bind completes on the EP's request_evd with the cookie; the new rmr_context reaches exactly the window")
    void shouldBindAndGiveRemoteAccessThroughNewContext(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            LmrTriplet t = s.window(WIN, WIN_LEN);
            int ctx = rmr.bind(t, remoteRw(), s.eb, 77, CompletionFlag.defaults());
            RmrBindCompletionEvent e = s.bindCompletion(77, DtoCompletionStatus.SUCCESS);
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber());
            assertSame(p.b.dto, e.evd());
            assertSame(rmr, e.rmr());
            assertNoEvent(s.bRecv);
            assertNotEquals(p.b.lmr.rmrContext().getAsInt(), ctx);
            assertEquals(
                    Optional.of(new RmrBinding(t, remoteRw(), ctx)), rmr.query().binding());

            for (int i = 0; i < 8; i++) {
                p.a.buf.put(i, (byte) (0x40 + i));
            }
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx, WIN + 8, 8), 1).status());
            for (int i = 0; i < 8; i++) {
                assertEquals(0x40 + i, p.b.buf.get(WIN + 8 + i), "byte " + i + " written through the RMR");
            }
            p.b.buf.put(WIN + WIN_LEN - 1, (byte) 0x77);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaRead(p.a, s.ea, 100, s.remote(ctx, WIN + WIN_LEN - 1, 1), 2)
                            .status());
            assertEquals(0x77, p.a.buf.get(100));
            // The window ends where the bind said: one byte further is a remote access error.
            p.a.buf.put(200, (byte) 1);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, s.ea, 200, s.remote(ctx, WIN + WIN_LEN - 1, 2), 3)
                            .status());
            assertEquals(0x77, p.b.buf.get(WIN + WIN_LEN - 1));
            assertEquals(0, p.b.buf.get(WIN + WIN_LEN));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): a rebind gives a new rmr_context; RDMA with the previous one fails (DAT_DTO_ERR_REMOTE_ACCESS)")
    void shouldInvalidatePreviousContextWhenRebound(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            int ctx1 = s.bind(rmr, s.window(WIN, WIN_LEN), remoteRw(), 1);
            p.a.buf.put(0, (byte) 11);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx1, WIN, 1), 10).status());
            LmrTriplet t2 = s.window(4096, 64);
            int ctx2 = s.bind(rmr, t2, remoteRw(), 2);
            assertNotEquals(ctx1, ctx2);
            assertEquals(
                    Optional.of(new RmrBinding(t2, remoteRw(), ctx2)),
                    rmr.query().binding());
            p.a.buf.put(0, (byte) 22);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx2, 4096, 1), 11).status());
            assertEquals(22, p.b.buf.get(4096));
            p.a.buf.put(0, (byte) 33);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx1, WIN, 1), 12).status(),
                    "the superseded rmr_context");
            assertEquals(11, p.b.buf.get(WIN));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): a bind that fails after dat_rmr_bind returned (flushed behind an RDMA Write the peer refused) leaves the RMR as it was: dat_rmr_query reports the old binding, whose rmr_context still works, and the new one does not")
    void shouldKeepBindingWhenBindFlushed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            LmrTriplet t1 = s.window(WIN, WIN_LEN);
            int ctx1 = s.bind(rmr, t1, remoteRw(), 1);
            // a second connection, to use the window once the first one is broken
            Endpoint ea2 = p.a.ep();
            Endpoint eb2 = p.b.ia.createEndpoint(p.b.pz, s.bRecv, p.b.dto, p.b.conn, null);
            p.connect(ea2, eb2);
            // eb writes through an rmr_context a does not have; the rebind posted behind it fails with it
            s.eb.postRdmaWrite(
                    p.b.iov(0, 8),
                    5,
                    new RmrTriplet(0x5555, p.a.lmr.registeredAddress(), 8),
                    CompletionFlag.defaults());
            int ctx2 = rmr.bind(s.window(4096, 64), remoteRw(), s.eb, 6, CompletionFlag.defaults());
            assertNotEquals(ctx1, ctx2);
            EventTestSupport.completion(p.b.dto, 5, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            s.bindCompletion(6, DtoCompletionStatus.ERR_FLUSHED);
            assertEquals(
                    Optional.of(new RmrBinding(t1, remoteRw(), ctx1)),
                    rmr.query().binding(),
                    "dat_rmr_query after the failed bind");
            p.a.buf.put(0, (byte) 9);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, ea2, 0, s.remote(ctx1, WIN, 1), 7).status(),
                    "the rmr_context of the binding dat_rmr_query reports");
            assertEquals(9, p.b.buf.get(WIN));
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, ea2, 0, s.remote(ctx2, 4096, 1), 8).status(),
                    "the rmr_context of the failed bind");
            assertEquals(0, p.b.buf.get(4096));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): a zero-length LMR triplet unbinds; the completion carries the cookie and the context stops working")
    void shouldUnbindWithZeroLengthTriplet(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            int ctx = s.bind(rmr, s.window(WIN, WIN_LEN), remoteRw(), 1);
            rmr.unbind(s.eb, 5, CompletionFlag.defaults());
            s.bindCompletion(5, DtoCompletionStatus.SUCCESS);
            assertEquals(Optional.empty(), rmr.query().binding());
            // Bound again, then unbound with an explicit zero-length triplet whose other fields do not matter.
            int ctx2 = s.bind(rmr, s.window(WIN, WIN_LEN), remoteRw(), 6);
            rmr.bind(new LmrTriplet(0x1234, 99, 0), remoteRw(), s.eb, 7, CompletionFlag.defaults());
            assertEquals(7, DatPair.next(p.b.dto, RmrBindCompletionEvent.class).userCookie());
            assertEquals(Optional.empty(), rmr.query().binding());
            p.b.lmr.free();
            p.a.buf.put(0, (byte) 1);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx2, WIN, 1), 8).status());
            assertEquals(0, p.b.buf.get(WIN));
            assertNotEquals(ctx, ctx2);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): argument checks -> DAT_INVALID_PARAMETER, DAT_PRIVILEGES_VIOLATION, DAT_PROTECTION_VIOLATION; nothing is posted")
    void shouldRefuseInvalidBinds(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            long base = p.b.lmr.registeredAddress();
            long size = p.b.lmr.registeredSize();
            int lmr = p.b.lmr.lmrContext();
            EnumSet<CompletionFlag> none = CompletionFlag.defaults();
            // The range must lie inside the LMR.
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> rmr.bind(new LmrTriplet(lmr, base + size - 8, 9), remoteRw(), s.eb, 1, none));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> rmr.bind(new LmrTriplet(lmr, base - 1, 8), remoteRw(), s.eb, 1, none));
            // An lmr_context that names no LMR.
            int unknown = lmr ^ 0x00F0_0000;
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    () -> rmr.bind(new LmrTriplet(unknown, base, 8), remoteRw(), s.eb, 1, none));
            // Remote read needs the LMR's local read, remote write its local write.
            LocalMemoryRegion noLocal = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)),
                    p.b.pz,
                    EnumSet.of(MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE));
            for (MemoryPrivilege remote :
                    new MemoryPrivilege[] {MemoryPrivilege.REMOTE_READ, MemoryPrivilege.REMOTE_WRITE}) {
                assertDat(
                        DatReturnType.PRIVILEGES_VIOLATION,
                        () -> rmr.bind(ObjectFixtures.seg(noLocal, 0, 8).get(0), EnumSet.of(remote), s.eb, 1, none));
            }
            // The LMR, the RMR and the endpoint must share one PZ.
            ProtectionZone pz2 = p.b.ia.createPz();
            LocalMemoryRegion other = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)), pz2, MemoryPrivilege.all());
            assertDat(
                    DatReturnType.PROTECTION_VIOLATION,
                    () -> rmr.bind(ObjectFixtures.seg(other, 0, 8).get(0), remoteRw(), s.eb, 1, none));
            RemoteMemoryRegion rmr2 = pz2.createRmr();
            assertDat(
                    DatReturnType.PROTECTION_VIOLATION,
                    () -> rmr2.bind(ObjectFixtures.seg(other, 0, 8).get(0), remoteRw(), s.eb, 1, none));
            // DAT_COMPLETION_UNSIGNALLED_FLAG needs the EP's request completion flags UNSIGNALLED.
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> rmr.bind(s.window(WIN, 8), remoteRw(), s.eb, 1, EnumSet.of(CompletionFlag.UNSIGNALLED)));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> rmr.bind(null, remoteRw(), s.eb, 1, none));
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> rmr.bind(s.window(WIN, 8), remoteRw(), null, 1, none));
            // Nothing was posted: the next event is the completion of the next valid bind.
            assertNoEvent(p.b.dto);
            assertEquals(Optional.empty(), rmr.query().binding());
            s.bind(rmr, s.window(WIN, 8), remoteRw(), 99);
        }
    }

    static Stream<Arguments> bindPrivileges() {
        List<Arguments> l = new ArrayList<>();
        for (DatPair.Mode m : DatPair.Mode.values()) {
            l.add(Arguments.of(m, MemoryPrivilege.REMOTE_READ));
            l.add(Arguments.of(m, MemoryPrivilege.REMOTE_WRITE));
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("bindPrivileges")
    @DisplayName(
            "dat_rmr_bind(3DAT): the bind's mem_privileges restrict the peer: the other RDMA direction gets DAT_DTO_ERR_REMOTE_ACCESS")
    void shouldRestrictRemoteAccessToBoundPrivileges(DatPair.Mode mode, MemoryPrivilege granted) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            int ctx = s.bind(rmr, s.window(WIN, WIN_LEN), EnumSet.of(granted), 1);
            assertEquals(
                    EnumSet.of(granted), rmr.query().binding().orElseThrow().privileges());
            p.b.buf.put(WIN, (byte) 5);
            p.a.buf.put(0, (byte) 6);
            p.a.buf.put(8, (byte) 0);
            boolean read = granted == MemoryPrivilege.REMOTE_READ;
            // The granted direction first (a failure breaks the connection).
            DtoCompletionEvent ok = read
                    ? rdmaRead(p.a, s.ea, 8, s.remote(ctx, WIN, 1), 2)
                    : rdmaWrite(p.a, s.ea, 0, s.remote(ctx, WIN, 1), 2);
            assertEquals(DtoCompletionStatus.SUCCESS, ok.status());
            p.a.buf.put(0, (byte) 7);
            DtoCompletionEvent denied = read
                    ? rdmaWrite(p.a, s.ea, 0, s.remote(ctx, WIN, 1), 3)
                    : rdmaRead(p.a, s.ea, 16, s.remote(ctx, WIN, 1), 3);
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, denied.status());
            assertEquals(read ? 5 : 6, p.b.buf.get(WIN));
            assertEquals(read ? 5 : 0, p.a.buf.get(8));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): valid only on a CONNECTED or DISCONNECTED EP: UNCONNECTED -> DAT_INVALID_STATE, DISCONNECTED -> flushed on request_evd")
    void shouldCheckEndpointStateOfBind(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            Endpoint idle = p.b.ep();
            LmrTriplet t = p.b.iov(0, 64).get(0);
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> rmr.bind(t, remoteRw(), idle, 1, CompletionFlag.defaults()));
            Setup s = new Setup(p);
            s.ea.disconnect(CloseFlag.ABRUPT);
            DatPair.expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            DatPair.expectConnection(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            rmr.bind(t, remoteRw(), s.eb, 2, CompletionFlag.defaults());
            s.bindCompletion(2, DtoCompletionStatus.ERR_FLUSHED);
            assertEquals(Optional.empty(), rmr.query().binding(), "a flushed bind binds nothing");
            p.b.lmr.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_bind(3DAT): DAT_COMPLETION_SUPPRESS_FLAG -> no event for a successful bind; the RMR is bound all the same")
    void shouldSuppressSuccessfulBindCompletion(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            LmrTriplet t = s.window(WIN, WIN_LEN);
            int ctx = rmr.bind(t, remoteRw(), s.eb, 1, EnumSet.of(CompletionFlag.SUPPRESS));
            // The bind fences later operations of the EP: when this write completes the bind has too.
            p.b.buf.put(0, (byte) 3);
            s.eb.postRdmaWrite(p.b.iov(0, 1), 2, p.a.remote(0, 1), CompletionFlag.defaults());
            assertEquals(2, DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie(), "no bind completion first");
            assertEquals(
                    Optional.of(new RmrBinding(t, remoteRw(), ctx)), rmr.query().binding());
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, p.b.lmr::free);
            p.a.buf.put(8, (byte) 4);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, s.ea, 8, s.remote(ctx, WIN, 1), 3).status());
            assertEquals(4, p.b.buf.get(WIN));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_query(3DAT), dat_lmr_free(3DAT): a suppressed bind with nothing posted after it is bound once it executed")
    void shouldReportSuppressedBindWithoutLaterCompletion(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            LmrTriplet t = s.window(WIN, WIN_LEN);
            s.ea.postRecv(p.a.iov(64, 1), 3, CompletionFlag.defaults());
            int ctx = rmr.bind(t, remoteRw(), s.eb, 1, EnumSet.of(CompletionFlag.SUPPRESS));
            // dat_rmr_bind(3DAT): a Send posted after the bind does not start before the bind completed; it
            // tells the peer the context may be used. Its own completion is suppressed too.
            p.b.buf.put(0, (byte) 1);
            s.eb.postSend(p.b.iov(0, 1), 2, EnumSet.of(CompletionFlag.SUPPRESS));
            EventTestSupport.completion(p.a.dto, 3);
            p.a.buf.put(8, (byte) 4);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, s.ea, 8, s.remote(ctx, WIN, 1), 4).status());
            assertEquals(4, p.b.buf.get(WIN));
            assertEquals(
                    Optional.of(new RmrBinding(t, remoteRw(), ctx)), rmr.query().binding());
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, p.b.lmr::free);
            assertNoEvent(p.b.dto);
            rmr.free();
            p.b.lmr.free();
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_rmr_free(3DAT): a bound RMR is unbound and freed; its rmr_context fails, the LMR is no longer in use")
    void shouldUnbindWhenBoundRmrIsFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Setup s = new Setup(p);
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            int ctx = s.bind(rmr, s.window(WIN, WIN_LEN), remoteRw(), 1);
            rmr.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR, rmr::query);
            assertDat(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_RMR,
                    () -> rmr.bind(s.window(WIN, 8), remoteRw(), s.eb, 2, CompletionFlag.defaults()));
            p.b.lmr.free();
            p.a.buf.put(0, (byte) 9);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, s.ea, 0, s.remote(ctx, WIN, 1), 3).status());
            assertEquals(0, p.b.buf.get(WIN));
        }
    }
}
