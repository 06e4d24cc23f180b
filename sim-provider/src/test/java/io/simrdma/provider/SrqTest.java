package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.EventTestSupport.assertNoEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.AsyncErrorEvent;
import io.simrdma.dat.AsyncErrorReason;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.SrqParams;
import io.simrdma.dat.SrqState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shared Receive Queues: dat_srq_create(3DAT), dat_srq_post_recv(3DAT), dat_srq_query(3DAT),
 * dat_srq_resize(3DAT), dat_srq_set_lw(3DAT), dat_srq_free(3DAT), dat_ep_create_with_srq(3DAT),
 * dat_ep_recv_query(3DAT). The SRQ lives on side b of a {@link DatPair}; side a sends.
 */
class SrqTest {

    /** Size of each receive buffer posted to the SRQ, at offset slot * BUF in b's LMR. */
    private static final int BUF = 64;

    private static SharedReceiveQueue srq(DatPair p, int maxRecvDtos) {
        return p.b.ia.createSrq(p.b.pz, new SrqAttributes(maxRecvDtos, 1, Dat.SRQ_LW_DEFAULT));
    }

    /** An endpoint of b taking its receives from {@code srq}, with b's EVDs. */
    private static Endpoint srqEp(DatPair p, SharedReceiveQueue srq) {
        return p.b.ia.createEndpointWithSrq(
                p.b.pz,
                p.b.dto,
                p.b.dto,
                p.b.conn,
                srq,
                EventTestSupport.attrs(p.b).build());
    }

    /** An SRQ of b, an endpoint of b taking its receives from it ({@code eb}), connected to a new endpoint of a ({@code ea}). */
    private record Shared(SharedReceiveQueue srq, Endpoint ea, Endpoint eb) {
        static Shared connect(DatPair p, int maxRecvDtos) {
            SharedReceiveQueue srq = SrqTest.srq(p, maxRecvDtos);
            Endpoint eb = srqEp(p, srq);
            Endpoint ea = p.a.ep();
            p.connect(ea, eb);
            return new Shared(srq, ea, eb);
        }
    }

    /** Posts buffer {@code slot} of b's LMR to the SRQ with cookie {@code 100 + slot}. */
    private static void post(DatPair p, SharedReceiveQueue srq, int slot) {
        srq.postRecv(p.b.iov(slot * BUF, BUF), 100 + slot);
    }

    /** Posts buffers {@code from} to {@code to - 1} ({@link #post(DatPair, SharedReceiveQueue, int)}). */
    private static void post(DatPair p, SharedReceiveQueue srq, int from, int to) {
        for (int i = from; i < to; i++) {
            post(p, srq, i);
        }
    }

    /** Sends {@code data} from side a on {@code ep} and waits for the send completion (the receiver has it). */
    private static void send(DatPair p, Endpoint ep, byte[] data, long cookie) {
        p.a.buf.put(0, data);
        ep.postSend(p.a.iov(0, data.length), cookie, CompletionFlag.defaults());
        EventTestSupport.completion(p.a.dto, cookie, DtoCompletionStatus.SUCCESS);
    }

    /** {@link #send}, then reaps the receive completion from b's DTO EVD. */
    private static void sendAndReap(DatPair p, Endpoint ep, byte[] data, long cookie) {
        send(p, ep, data, cookie);
        DatPair.next(p.b.dto, DtoCompletionEvent.class);
    }

    private static void assertCounts(SharedReceiveQueue srq, int available, int outstanding) {
        SrqParams q = srq.query();
        assertEquals(available, q.availableDtoCount(), () -> "available_dto_count of " + q);
        assertEquals(outstanding, q.outstandingDtoCount(), () -> "outstanding_dto_count of " + q);
    }

    // ------------------------------------------------------------------ dat_srq_create, dat_srq_query

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_create(3DAT), dat_srq_query(3DAT): at least the asked sizes, unattached and empty; invalid sizes -> DAT_INVALID_PARAMETER")
    void shouldCreateSrqWithinIaLimits(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, "maxSrqWr=40&maxSge=3")) {
            SharedReceiveQueue srq = p.b.ia.createSrq(p.b.pz, new SrqAttributes(4, 2, Dat.SRQ_LW_DEFAULT));
            assertEquals(HandleType.SRQ, srq.handleType());
            SrqParams q = srq.query();
            assertSame(p.b.ia, q.ia());
            assertSame(p.b.pz, q.pz());
            assertEquals(SrqState.OPERATIONAL, q.state());
            assertTrue(q.maxRecvDtos() >= 4, () -> "max_recv_dtos " + q.maxRecvDtos());
            assertTrue(q.maxRecvIov() >= 2, () -> "max_recv_iov " + q.maxRecvIov());
            assertEquals(Dat.SRQ_LW_DEFAULT, q.lowWatermark());
            assertEquals(0, q.availableDtoCount());
            assertEquals(0, q.outstandingDtoCount());
            assertNoEvent(p.b.ia.query().asyncEvd().orElseThrow());

            assertEquals(40, p.b.ia.query().iaAttributes().maxRecvPerSrq());
            p.b.ia.createSrq(p.b.pz, new SrqAttributes(40, 3, 0)).free();
            for (SrqAttributes bad : List.of(
                    new SrqAttributes(0, 1, 0),
                    new SrqAttributes(41, 1, 0),
                    new SrqAttributes(4, 4, 0),
                    new SrqAttributes(4, 1, 5))) {
                assertDat(DatReturnType.INVALID_PARAMETER, () -> p.b.ia.createSrq(p.b.pz, bad));
            }
            assertDat(DatReturnType.INVALID_PARAMETER, () -> p.b.ia.createSrq(p.b.pz, null));
        }
    }

    // ------------------------------------------------------------------ dat_srq_post_recv

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_post_recv(3DAT): IOV checks (DAT_INVALID_PARAMETER, DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION); a full SRQ -> DAT_INSUFFICIENT_RESOURCES")
    void shouldCheckPostedBuffers(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = srq(p, 4);
            int size = srq.query().maxRecvDtos();
            LocalMemoryRegion lmr = p.b.lmr;
            long base = lmr.registeredAddress();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> srq.postRecv(
                            List.of(new LmrTriplet(lmr.lmrContext(), base + lmr.registeredSize() - 4, 8)), 1));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> srq.postRecv(null, 1));
            List<LmrTriplet> tooMany = new ArrayList<>();
            for (int i = 0; i <= srq.query().maxRecvIov(); i++) {
                tooMany.add(new LmrTriplet(lmr.lmrContext(), base + i * 8L, 8));
            }
            assertDat(DatReturnType.INVALID_PARAMETER, () -> srq.postRecv(tooMany, 1));
            ProtectionZone pz2 = p.b.ia.createPz();
            LocalMemoryRegion otherPz = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)), pz2, MemoryPrivilege.all());
            assertDat(DatReturnType.PROTECTION_VIOLATION, () -> srq.postRecv(ObjectFixtures.seg(otherPz, 0, 8), 1));
            // dat_srq_post_recv(3DAT): an LMR that is invalid or lacks local write.
            LocalMemoryRegion readOnly = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)),
                    p.b.pz,
                    EnumSet.of(MemoryPrivilege.LOCAL_READ));
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, () -> srq.postRecv(ObjectFixtures.seg(readOnly, 0, 8), 1));
            List<LmrTriplet> ofFreed = ObjectFixtures.seg(readOnly, 0, 8);
            readOnly.free();
            assertDat(DatReturnType.PRIVILEGES_VIOLATION, () -> srq.postRecv(ofFreed, 1));
            assertCounts(srq, 0, 0);

            post(p, srq, 0, size);
            assertCounts(srq, size, size);
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, () -> post(p, srq, size));
            assertCounts(srq, size, size);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_post_recv(3DAT), dat_srq_create(3DAT): EPs sharing an SRQ complete each connection's messages in its send order on the EP's recv_evd")
    void shouldCompleteEachConnectionInSendOrder(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = srq(p, 16);
            Endpoint eb1 = srqEp(p, srq);
            Endpoint eb2 = srqEp(p, srq);
            Endpoint ea1 = p.a.ep();
            Endpoint ea2 = p.a.ep();
            p.connect(ea1, eb1);
            p.connect(ea2, eb2);
            post(p, srq, 0, 6);
            send(p, ea1, new byte[] {1, 1}, 1);
            send(p, ea2, new byte[] {2, 1}, 2);
            send(p, ea1, new byte[] {1, 2}, 3);
            send(p, ea1, new byte[] {1, 3}, 4);
            send(p, ea2, new byte[] {2, 2}, 5);
            Map<Endpoint, List<Integer>> order = new HashMap<>();
            Set<Long> cookies = new HashSet<>();
            for (int i = 0; i < 5; i++) {
                DtoCompletionEvent e = DatPair.next(p.b.dto, DtoCompletionEvent.class);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                assertEquals(2, e.transferredLength());
                assertTrue(e.ep() == eb1 || e.ep() == eb2, () -> "completion of another EP: " + e);
                assertTrue(cookies.add(e.userCookie()), () -> "a buffer completed twice: " + e);
                int slot = (int) e.userCookie() - 100;
                assertTrue(slot >= 0 && slot < 6, () -> "cookie " + e.userCookie());
                int conn = p.b.buf.get(slot * BUF);
                int seq = p.b.buf.get(slot * BUF + 1);
                assertEquals(e.ep() == eb1 ? 1 : 2, conn, "the message arrived on its own connection's EP");
                order.computeIfAbsent(e.ep(), k -> new ArrayList<>()).add(seq);
            }
            assertEquals(List.of(1, 2, 3), order.get(eb1));
            assertEquals(List.of(1, 2), order.get(eb2));
            assertCounts(srq, 1, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_query(3DAT): the man page's example: 3 posted -> 3/3; a message arrives -> 2 available, 3 outstanding; reaped -> 2/2")
    void shouldCountAsTheManPageExample(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Shared s = Shared.connect(p, 10);
            SharedReceiveQueue srq = s.srq();
            post(p, srq, 0, 3);
            assertTrue(srq.query().maxRecvDtos() >= 10);
            assertCounts(srq, 3, 3);
            send(p, s.ea(), new byte[] {9}, 1);
            assertCounts(srq, 2, 3);
            DtoCompletionEvent e = DatPair.next(p.b.dto, DtoCompletionEvent.class);
            assertSame(s.eb(), e.ep());
            assertCounts(srq, 2, 2);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_query(3DAT), dat_srq_post_recv(3DAT): an entry whose completion is not reaped is not available for new postings")
    void shouldKeepEntryOfUnreapedCompletion(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Shared s = Shared.connect(p, 4);
            SharedReceiveQueue srq = s.srq();
            int size = srq.query().maxRecvDtos();
            post(p, srq, 0, size);
            send(p, s.ea(), new byte[] {1}, 1);
            assertCounts(srq, size - 1, size);
            assertDat(DatReturnType.INSUFFICIENT_RESOURCES, () -> post(p, srq, size));
            long cookie = DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie();
            assertCounts(srq, size - 1, size - 1);
            srq.postRecv(p.b.iov((int) (cookie - 100) * BUF, BUF), cookie);
            assertCounts(srq, size, size);
        }
    }

    // ------------------------------------------------------------------ dat_srq_set_lw

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_set_lw(3DAT): one asynchronous event when the SRQ falls below the low watermark (S6: ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, reason SRQ_LOW_WATERMARK_EVENT), at once if already below")
    void shouldSignalLowWatermarkOnceOnAsyncEvd(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = p.b.ia.query().asyncEvd().orElseThrow();
            Shared s = Shared.connect(p, 8);
            SharedReceiveQueue srq = s.srq();
            Endpoint ea = s.ea();
            post(p, srq, 0, 4);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> srq.setLowWatermark(srq.query().maxRecvDtos() + 1));
            srq.setLowWatermark(3);
            assertEquals(3, srq.query().lowWatermark());
            assertNoEvent(async);
            // 3 left: not below 3.
            sendAndReap(p, ea, new byte[] {1}, 1);
            assertNoEvent(async);
            // 2 left: below.
            sendAndReap(p, ea, new byte[] {2}, 2);
            AsyncErrorEvent lw = DatPair.next(async, AsyncErrorEvent.class);
            assertEquals(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, lw.eventNumber());
            assertEquals(AsyncErrorReason.SRQ_LOW_WATERMARK_EVENT, lw.reason());
            assertSame(srq, lw.handle());
            assertSame(async, lw.evd());
            // Once per setting: 1 left, no second event.
            sendAndReap(p, ea, new byte[] {3}, 3);
            assertNoEvent(async);
            // Set again while already below: the event comes at once.
            srq.setLowWatermark(2);
            assertSame(srq, DatPair.next(async, AsyncErrorEvent.class).handle());
            assertEquals(2, srq.query().lowWatermark(), "the low watermark stays what the consumer set");
            // DAT_SRQ_LW_DEFAULT: no event.
            srq.setLowWatermark(Dat.SRQ_LW_DEFAULT);
            sendAndReap(p, ea, new byte[] {4}, 4);
            assertNoEvent(async);
            assertCounts(srq, 0, 0);
            // A new setting replaces an armed one: armed at 2 with 4 buffers, then set to DAT_SRQ_LW_DEFAULT.
            post(p, srq, 4, 8);
            srq.setLowWatermark(2);
            srq.setLowWatermark(Dat.SRQ_LW_DEFAULT);
            for (int i = 5; i < 8; i++) {
                sendAndReap(p, ea, new byte[] {(byte) i}, i);
            }
            assertNoEvent(async);
            // Armed at 1, then set to 3 while 1 is left: one event, at once, and none when the last buffer goes.
            srq.setLowWatermark(1);
            srq.setLowWatermark(3);
            assertSame(srq, DatPair.next(async, AsyncErrorEvent.class).handle());
            sendAndReap(p, ea, new byte[] {8}, 8);
            assertNoEvent(async);
        }
    }

    // ------------------------------------------------------------------ dat_srq_resize

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_resize(3DAT): below the outstanding buffers (unreaped completions included) or the low watermark -> DAT_INVALID_STATE; growing keeps every buffer")
    void shouldResizeWithinOutstandingBuffersAndWatermark(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, "maxSrqWr=64")) {
            Shared s = Shared.connect(p, 8);
            SharedReceiveQueue srq = s.srq();
            post(p, srq, 0, 3);
            send(p, s.ea(), new byte[] {1}, 1);
            // 2 on the SRQ and 1 completed but not reaped: 3 outstanding.
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, () -> srq.resize(2));
            srq.resize(3);
            assertTrue(srq.query().maxRecvDtos() >= 3);
            long first = DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie();
            assertTrue(first >= 100 && first <= 102, () -> "cookie " + first);
            srq.resize(2);
            assertTrue(srq.query().maxRecvDtos() >= 2);
            assertDat(DatReturnType.INVALID_PARAMETER, () -> srq.resize(65));

            srq.resize(20);
            assertTrue(srq.query().maxRecvDtos() >= 20);
            post(p, srq, 3, 20);
            assertCounts(srq, 19, 19);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, () -> srq.resize(18));
            // The buffers are all still there and receive.
            send(p, s.ea(), new byte[] {2}, 2);
            DtoCompletionEvent e = DatPair.next(p.b.dto, DtoCompletionEvent.class);
            assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            assertTrue(e.userCookie() >= 100 && e.userCookie() < 120 && e.userCookie() != first, () -> "cookie " + e);
            assertCounts(srq, 18, 18);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_srq_resize(3DAT): below the low watermark -> DAT_INVALID_STATE, also after its event fired")
    void shouldRefuseResizeBelowLowWatermark(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher async = p.b.ia.query().asyncEvd().orElseThrow();
            SharedReceiveQueue srq = srq(p, 8);
            srq.setLowWatermark(4);
            // An empty SRQ is below 4: the event comes at once.
            assertSame(srq, DatPair.next(async, AsyncErrorEvent.class).handle());
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, () -> srq.resize(3));
            srq.resize(4);
            assertTrue(srq.query().maxRecvDtos() >= 4);
            assertDat(DatReturnType.INVALID_PARAMETER, () -> srq.resize(0));
        }
    }

    // ------------------------------------------------------------------ dat_srq_free, dat_ep_create_with_srq,
    // dat_ep_recv_query

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_srq_free(3DAT): an SRQ an EP uses -> DAT_INVALID_STATE (C8: DAT_INVALID_STATE_SRQ_IN_USE for the page's DAT_SRQ_IN_USE)")
    void shouldRefuseFreeWhileAnEndpointUsesIt(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = srq(p, 4);
            Endpoint ep = srqEp(p, srq);
            Endpoint ep2 = srqEp(p, srq);
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);
            ep.free();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);
            assertSame(srq, ep2.query().srq().orElseThrow(), "the refused free changed nothing");
            post(p, srq, 0);
            ep2.free();
            srq.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, srq::query);
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> post(p, srq, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_create_with_srq(3DAT): attributes required, the SRQ's PZ (no srq_ep_pz_difference_support), max_recv_iov ignored, no receives posted to the EP")
    void shouldCreateEndpointWithSrq(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            SharedReceiveQueue srq = srq(p, 4);
            EpAttributes attrs = EventTestSupport.attrs(p.b).build();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> p.b.ia.createEndpointWithSrq(p.b.pz, p.b.dto, p.b.dto, p.b.conn, srq, null));
            assertEquals(false, p.b.ia.query().providerAttributes().srqEpPzDifferenceSupported());
            ProtectionZone pz2 = p.b.ia.createPz();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> p.b.ia.createEndpointWithSrq(pz2, p.b.dto, p.b.dto, p.b.conn, srq, attrs));
            int beyond = p.b.ia.query().iaAttributes().maxIovSegmentsPerDto() + 1;
            Endpoint ep = p.b.ia.createEndpointWithSrq(
                    p.b.pz,
                    p.b.dto,
                    p.b.dto,
                    p.b.conn,
                    srq,
                    attrs.toBuilder().maxRecvIov(beyond).build());
            assertEquals(EndpointState.UNCONNECTED, ep.query().state());
            assertSame(srq, ep.query().srq().orElseThrow());
            // S3 SILENT: receives go to the SRQ; posting to the EP is DAT_INVALID_PARAMETER.
            assertDat(DatReturnType.INVALID_PARAMETER, () -> ep.postRecv(p.b.iov(0, 8), 1, CompletionFlag.defaults()));
            assertCounts(srq, 0, 0);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_recv_query(3DAT): buffers posted to an EP and not completed; an SRQ EP reports DAT_VALUE_UNKNOWN")
    void shouldReportReceiveBuffersOfEndpoint(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint plain = p.b.ep();
            assertEquals(new EpRecvInfo(0, 0), plain.recvQuery());
            for (int i = 0; i < 3; i++) {
                plain.postRecv(p.b.iov(i * BUF, BUF), i, CompletionFlag.defaults());
            }
            assertEquals(new EpRecvInfo(3, 3), plain.recvQuery());
            Endpoint ea = p.a.ep();
            p.connect(ea, plain);
            send(p, ea, new byte[] {5}, 9);
            assertEquals(0, DatPair.next(p.b.dto, DtoCompletionEvent.class).userCookie());
            assertEquals(new EpRecvInfo(2, 2), plain.recvQuery());

            SharedReceiveQueue srq = srq(p, 4);
            Endpoint withSrq = srqEp(p, srq);
            post(p, srq, 0);
            assertEquals(new EpRecvInfo(Dat.VALUE_UNKNOWN, Dat.VALUE_UNKNOWN), withSrq.recvQuery());
            assertNoEvent(p.b.dto);
        }
    }
}
