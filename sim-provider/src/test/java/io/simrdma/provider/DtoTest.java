package io.simrdma.provider;

import static io.simrdma.provider.DatPair.WAIT;
import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.DatPair.expectConnection;
import static io.simrdma.provider.DatPair.flags;
import static io.simrdma.provider.EventTestSupport.assertDto;
import static io.simrdma.provider.EventTestSupport.attrs;
import static io.simrdma.provider.EventTestSupport.await;
import static io.simrdma.provider.EventTestSupport.awaitQueued;
import static io.simrdma.provider.EventTestSupport.device;
import static io.simrdma.provider.EventTestSupport.link;
import static io.simrdma.provider.EventTestSupport.nextDto;
import static io.simrdma.provider.EventTestSupport.queued;
import static io.simrdma.provider.ObjectFixtures.bytes;
import static io.simrdma.provider.ObjectFixtures.connect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.FaultRule;
import io.simrdma.fabric.PacketEvent;
import io.simrdma.fabric.PacketMatcher;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.provider.ObjectFixtures.Connected;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * DTO completion tests: dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT) with their completion flags, and every DAT_DTO_COMPLETION_STATUS the
 * simulated fabric produces (dat.h; mapped from verbs work completions by {@link Statuses}).
 */
class DtoTest {

    private static final EnumSet<CompletionFlag> DEFAULT = CompletionFlag.defaults();

    private static void fill(ByteBuffer buf, int offset, int len, int seed) {
        for (int i = 0; i < len; i++) {
            buf.put(offset + i, (byte) (seed + i * 7));
        }
    }

    private static void assertNothingQueued(EventDispatcher evd) {
        assertEquals(Optional.empty(), evd.dequeue(), () -> "no further event on " + evd);
    }

    // ------------------------------------------------------------------ success

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_post_send/recv/rdma_read/rdma_write(3DAT): DAT_DTO_SUCCESS with the cookie, the transferred length and the data")
    void shouldCompleteEachDtoWithCookieAndLengthWhenSuccessful(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            fill(p.a.buf, 0, 4096, 3);
            fill(p.b.buf, 8192, 4096, 91);

            c.b().postRecv(p.b.iov(16384, 128), 11, DEFAULT);
            c.a().postSend(p.a.iov(0, 100), 21, DEFAULT);
            assertEquals(
                    100,
                    nextDto(p.a.dto, c.a(), 21, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    100,
                    nextDto(p.b.dto, c.b(), 11, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(p.a.buf, 0, 100), bytes(p.b.buf, 16384, 100));

            c.a().postRdmaWrite(p.a.iov(1000, 200), 22, p.b.remote(20000, 256), DEFAULT);
            assertEquals(
                    200,
                    nextDto(p.a.dto, c.a(), 22, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(p.a.buf, 1000, 200), bytes(p.b.buf, 20000, 200));

            c.a().postRdmaRead(p.a.iov(30000, 400), 23, p.b.remote(8192, 300), DEFAULT);
            assertEquals(
                    300,
                    nextDto(p.a.dto, c.a(), 23, DtoCompletionStatus.SUCCESS).transferredLength());
            assertArrayEquals(bytes(p.b.buf, 8192, 300), bytes(p.a.buf, 30000, 300));

            // A zero-size message (num_segments 0) and a gathered/scattered one.
            c.b().postRecv(List.of(), 12, DEFAULT);
            c.b().postRecv(
                            List.of(
                                    p.b.iov(40000, 10).get(0),
                                    p.b.iov(50000, 100).get(0)),
                            13,
                            DEFAULT);
            c.a().postSend(List.of(), 24, DEFAULT);
            c.a().postSend(
                            List.of(
                                    p.a.iov(0, 30).get(0),
                                    p.a.iov(500, 20).get(0),
                                    p.a.iov(900, 5).get(0)),
                            25,
                            DEFAULT);
            assertEquals(
                    0, nextDto(p.a.dto, c.a(), 24, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    55, nextDto(p.a.dto, c.a(), 25, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    0, nextDto(p.b.dto, c.b(), 12, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(
                    55, nextDto(p.b.dto, c.b(), 13, DtoCompletionStatus.SUCCESS).transferredLength());
            // dat_ep_post_recv(3DAT): front segments are filled completely, in I/O vector order.
            ByteBuffer expect = ByteBuffer.allocate(55);
            expect.put(bytes(p.a.buf, 0, 30)).put(bytes(p.a.buf, 500, 20)).put(bytes(p.a.buf, 900, 5));
            ByteBuffer got = ByteBuffer.allocate(55);
            got.put(bytes(p.b.buf, 40000, 10)).put(bytes(p.b.buf, 50000, 45));
            assertArrayEquals(expect.array(), got.array());
            assertNothingQueued(p.a.dto);
            assertNothingQueued(p.b.dto);
        }
    }

    // ------------------------------------------------------------------ completion flags

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_COMPLETION_SUPPRESS_FLAG (dat_ep_post_send(3DAT)): a successful DTO has no completion, a failed one still does")
    void shouldSuppressOnlySuccessfulCompletionsWhenSuppressFlagIsGiven(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            for (int i = 0; i < 4; i++) {
                c.b().postRecv(p.b.iov(1024 * i, 1024), 40 + i, DEFAULT);
            }
            c.a().postSend(p.a.iov(0, 10), 31, flags(CompletionFlag.SUPPRESS));
            c.a().postRdmaWrite(p.a.iov(0, 10), 32, p.b.remote(8192, 10), flags(CompletionFlag.SUPPRESS));
            c.a().postSend(p.a.iov(0, 20), 33, DEFAULT);
            c.a().postSend(p.a.iov(0, 30), 34, flags(CompletionFlag.SUPPRESS));
            c.a().postSend(p.a.iov(0, 1), 35, DEFAULT);
            nextDto(p.a.dto, c.a(), 33, DtoCompletionStatus.SUCCESS);
            nextDto(p.a.dto, c.a(), 35, DtoCompletionStatus.SUCCESS);
            // The receiver saw every message, suppressed or not.
            assertEquals(10, nextDto(p.b.dto).transferredLength());
            assertEquals(20, nextDto(p.b.dto).transferredLength());
            assertEquals(30, nextDto(p.b.dto).transferredLength());
            assertEquals(1, nextDto(p.b.dto).transferredLength());
            assertNothingQueued(p.a.dto);

            RmrTriplet bad = new RmrTriplet(~p.b.lmr.rmrContext().orElseThrow(), p.b.lmr.registeredAddress(), 8);
            c.a().postRdmaWrite(p.a.iov(0, 8), 36, bad, flags(CompletionFlag.SUPPRESS));
            nextDto(p.a.dto, c.a(), 36, DtoCompletionStatus.ERR_REMOTE_ACCESS);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_COMPLETION_UNSIGNALLED_FLAG (dat_ep_post_send(3DAT), dat_evd_wait(3DAT)): only with an UNSIGNALLED endpoint; queued without waking a waiter or the CNO; errors notify")
    void shouldQueueWithoutNotifyingWhenUnsignalledFlagIsGiven(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint plain = p.a.ep();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> plain.postRecv(p.a.iov(0, 8), 1, flags(CompletionFlag.UNSIGNALLED)));
            ConsumerNotificationObject cno = p.a.ia.createCno(null);
            EventDispatcher req = p.a.ia.createEvd(16, cno, EnumSet.of(EvdFlag.DTO));
            Endpoint a = p.a.ia.createEndpoint(
                    p.a.pz,
                    p.a.dto,
                    req,
                    p.a.conn,
                    attrs(p.a)
                            .requestCompletionFlags(flags(CompletionFlag.UNSIGNALLED))
                            .build());
            Endpoint b = p.b.ep();
            p.connect(a, b);
            Endpoint plainB = p.b.ep();
            Endpoint plainA2 = p.a.ep();
            p.connect(plainA2, plainB);
            RmrTriplet r = p.b.remote(8192, 8);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> plainA2.postSend(p.a.iov(0, 8), 1, flags(CompletionFlag.UNSIGNALLED)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> plainA2.postRdmaWrite(p.a.iov(0, 8), 1, r, flags(CompletionFlag.UNSIGNALLED)));
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> plainA2.postRdmaRead(p.a.iov(0, 8), 1, r, flags(CompletionFlag.UNSIGNALLED)));

            for (int i = 0; i < 2; i++) {
                b.postRecv(p.b.iov(1024 * i, 1024), 60 + i, DEFAULT);
            }
            a.postSend(p.a.iov(0, 16), 51, flags(CompletionFlag.UNSIGNALLED));
            awaitQueued(p.a.ia, req, 1);
            EvdWaitResult w = req.waitForEvent(Timeout.ZERO, 1);
            assertEquals(
                    DatReturnType.TIMEOUT_EXPIRED, w.status(), "an unsignalled completion does not satisfy a waiter");
            assertEquals(1, w.nmore());
            assertTrue(
                    cno.waitForNotification(Timeout.ZERO).isTimedOut(),
                    "an unsignalled completion does not trigger the CNO");
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    () -> req.waitForEvent(Timeout.ZERO, 2));

            a.postSend(p.a.iov(0, 24), 52, DEFAULT);
            assertSame(
                    req, cno.waitForNotification(WAIT).evd().orElseThrow(), "a signalled completion triggers the CNO");
            EvdWaitResult first = req.waitForEvent(WAIT, 1);
            assertEquals(
                    51,
                    assertInstanceOf(DtoCompletionEvent.class, first.event().orElseThrow())
                            .userCookie(),
                    "the unsignalled completion comes first, in order");
            assertEquals(1, first.nmore());
            assertEquals(16, ((DtoCompletionEvent) first.event().get()).transferredLength());
            nextDto(req, a, 52, DtoCompletionStatus.SUCCESS);

            // dat_ep_post_rdma_write(3DAT): an error is reported whatever the flags, and it notifies.
            RmrTriplet bad = new RmrTriplet(~p.b.lmr.rmrContext().orElseThrow(), p.b.lmr.registeredAddress(), 8);
            a.postRdmaWrite(p.a.iov(0, 8), 53, bad, flags(CompletionFlag.UNSIGNALLED));
            nextDto(req, a, 53, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            assertEquals(60, nextDto(p.b.dto).userCookie());
            assertEquals(61, nextDto(p.b.dto).userCookie());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_COMPLETION_SOLICITED_WAIT_FLAG (dat_ep_post_recv(3DAT), dat_ep_create(3DAT)): only a solicited send's receive notifies")
    void shouldNotifyReceiverOnlyWhenSendIsSolicited(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ConsumerNotificationObject cno = p.b.ia.createCno(null);
            EventDispatcher recv = p.b.ia.createEvd(16, cno, EnumSet.of(EvdFlag.DTO));
            Endpoint a = p.a.ep();
            Endpoint b = p.b.ia.createEndpoint(
                    p.b.pz,
                    recv,
                    p.b.dto,
                    p.b.conn,
                    attrs(p.b)
                            .recvCompletionFlags(flags(CompletionFlag.SOLICITED_WAIT))
                            .build());
            p.connect(a, b);
            for (int i = 0; i < 3; i++) {
                b.postRecv(p.b.iov(1024 * i, 1024), 70 + i, DEFAULT);
            }
            a.postSend(p.a.iov(0, 11), 81, DEFAULT);
            awaitQueued(p.b.ia, recv, 1);
            EvdWaitResult w = recv.waitForEvent(Timeout.ZERO, 1);
            assertEquals(
                    DatReturnType.TIMEOUT_EXPIRED, w.status(), "an unsolicited message does not wake the receiver");
            assertEquals(1, w.nmore());
            assertTrue(cno.waitForNotification(Timeout.ZERO).isTimedOut());
            assertDat(
                    DatReturnType.INVALID_STATE,
                    DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    () -> recv.waitForEvent(Timeout.ZERO, 2));

            a.postSend(p.a.iov(0, 22), 82, flags(CompletionFlag.SOLICITED_WAIT));
            assertSame(recv, cno.waitForNotification(WAIT).evd().orElseThrow());
            assertEquals(11, nextDto(recv, b, 70, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(22, nextDto(recv, b, 71, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(81, nextDto(p.a.dto).userCookie());
            assertEquals(82, nextDto(p.a.dto).userCookie());
            assertTrue(recv.waitForEvent(Timeout.ZERO, 1).isTimedOut());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_COMPLETION_EVD_THRESHOLD_FLAG (dat.h, dat_evd_wait(3DAT)): the waiter is released by the threshold; a receive-attribute flag only")
    void shouldReleaseWaiterByThresholdWhenEvdThresholdFlagIsSet(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            EventDispatcher recv = p.b.ia.createEvd(8, null, EnumSet.of(EvdFlag.DTO));
            EpAttributes threshold = attrs(p.b)
                    .recvCompletionFlags(flags(CompletionFlag.EVD_THRESHOLD))
                    .build();
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> p.b.ia.createEndpoint(
                            p.b.pz,
                            recv,
                            p.b.dto,
                            p.b.conn,
                            threshold.toBuilder()
                                    .recvCompletionFlags(
                                            flags(CompletionFlag.EVD_THRESHOLD, CompletionFlag.UNSIGNALLED))
                                    .build()));
            Endpoint a = p.a.ep();
            Endpoint b = p.b.ia.createEndpoint(p.b.pz, recv, p.b.dto, p.b.conn, threshold);
            p.connect(a, b);
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    () -> a.postSend(p.a.iov(0, 8), 1, flags(CompletionFlag.EVD_THRESHOLD)));
            for (int i = 0; i < 3; i++) {
                b.postRecv(p.b.iov(1024 * i, 1024), 90 + i, DEFAULT);
            }
            for (int i = 0; i < 3; i++) {
                a.postSend(p.a.iov(0, 5 + i), 95 + i, DEFAULT);
            }
            EvdWaitResult w = recv.waitForEvent(WAIT, 3);
            assertEquals(DatReturnType.SUCCESS, w.status());
            assertEquals(2, w.nmore(), "three events were queued when the threshold of 3 released the waiter");
            assertEquals(90, ((DtoCompletionEvent) w.event().orElseThrow()).userCookie());
            EvdWaitResult short2 = recv.waitForEvent(Timeout.ofMillis(1), 3);
            assertEquals(DatReturnType.TIMEOUT_EXPIRED, short2.status());
            assertEquals(2, short2.nmore());
            assertEquals(
                    91, ((DtoCompletionEvent) recv.waitForEvent(WAIT, 2).event().orElseThrow()).userCookie());
            assertEquals(7, nextDto(recv, b, 92, DtoCompletionStatus.SUCCESS).transferredLength());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_COMPLETION_BARRIER_FENCE_FLAG (dat.h): a send after an RDMA Read starts only once the Read completed")
    void shouldStartFencedSendOnlyAfterReadCompletesWhenBarrierFenceIsGiven(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            String a = device(p.a).name();
            String b = device(p.b).name();
            fill(p.a.buf, 0, 256, 1);
            fill(p.b.buf, 8192, 256, 77);
            c.b().postRecv(p.b.iov(16384, 256), 100, DEFAULT);
            try (EventTestSupport.PacketLog log = new EventTestSupport.PacketLog(EventTestSupport.fabric(p))) {
                c.a().postRdmaRead(p.a.iov(0, 256), 101, p.b.remote(8192, 256), DEFAULT);
                c.a().postSend(p.a.iov(0, 256), 102, flags(CompletionFlag.BARRIER_FENCE));
                nextDto(p.a.dto, c.a(), 101, DtoCompletionStatus.SUCCESS);
                nextDto(p.a.dto, c.a(), 102, DtoCompletionStatus.SUCCESS);
                nextDto(p.b.dto, c.b(), 100, DtoCompletionStatus.SUCCESS);
                int response = log.first(PacketEvent.DELIVERED, a, Opcode.RC_RDMA_READ_RESPONSE_ONLY);
                int send = log.first(PacketEvent.SENT, b, Opcode.RC_SEND_ONLY);
                assertTrue(response >= 0 && send >= 0, () -> "packets seen: " + log.snapshot());
                assertTrue(
                        send > response,
                        () -> "the fenced SEND left before the READ response arrived: " + log.snapshot());
            }
            // The fenced send carried what the read brought in.
            assertArrayEquals(bytes(p.b.buf, 8192, 256), bytes(p.b.buf, 16384, 256));

            if (mode == DatPair.Mode.DETERMINISTIC) {
                // Control: without the fence the SEND does not wait for the READ (so the check above can fail).
                c.b().postRecv(p.b.iov(16384, 256), 103, DEFAULT);
                try (EventTestSupport.PacketLog log = new EventTestSupport.PacketLog(EventTestSupport.fabric(p))) {
                    c.a().postRdmaRead(p.a.iov(0, 256), 104, p.b.remote(8192, 256), DEFAULT);
                    c.a().postSend(p.a.iov(0, 256), 105, DEFAULT);
                    assertEquals(104, nextDto(p.a.dto).userCookie());
                    assertEquals(105, nextDto(p.a.dto).userCookie());
                    assertEquals(103, nextDto(p.b.dto).userCookie());
                    assertTrue(
                            log.first(PacketEvent.SENT, b, Opcode.RC_SEND_ONLY)
                                    < log.first(PacketEvent.DELIVERED, a, Opcode.RC_RDMA_READ_RESPONSE_ONLY),
                            () -> "" + log.snapshot());
                }
            }
        }
    }

    // ------------------------------------------------------------------ error statuses

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_FLUSHED (dat_ep_disconnect(3DAT), dat_ep_post_*(3DAT)): outstanding receives flushed in order; posts in DISCONNECTED flushed at once")
    void shouldFlushInOrderWhenEndpointDisconnects(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            for (int i = 0; i < 3; i++) {
                c.a().postRecv(p.a.iov(1024 * i, 1024), 110 + i, DEFAULT);
            }
            c.b().postRecv(p.b.iov(0, 64), 120, DEFAULT);
            c.b().postRecv(p.b.iov(64, 64), 121, DEFAULT);
            c.a().disconnect(CloseFlag.ABRUPT);
            expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (int i = 0; i < 3; i++) {
                nextDto(p.a.dto, c.a(), 110 + i, DtoCompletionStatus.ERR_FLUSHED);
            }
            assertEquals(EndpointState.DISCONNECTED, c.a().status().state());
            c.a().postSend(p.a.iov(0, 8), 130, DEFAULT);
            c.a().postRdmaWrite(p.a.iov(0, 8), 131, p.b.remote(0, 8), DEFAULT);
            c.a().postRdmaRead(p.a.iov(0, 8), 132, p.b.remote(0, 8), DEFAULT);
            c.a().postRecv(p.a.iov(0, 8), 133, DEFAULT);
            List<Long> flushed = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                DtoCompletionEvent e = nextDto(p.a.dto);
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status(), () -> "" + e);
                flushed.add(e.userCookie());
            }
            assertEquals(
                    List.of(130L, 131L, 132L),
                    flushed.stream().filter(x -> x != 133L).toList(),
                    "request flushes keep post order");
            assertTrue(flushed.contains(133L));
            assertNothingQueued(p.a.dto);

            // The peer's receives are flushed when it learns of the disconnect.
            expectConnection(p.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            nextDto(p.b.dto, c.b(), 120, DtoCompletionStatus.ERR_FLUSHED);
            nextDto(p.b.dto, c.b(), 121, DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_LOCAL_LENGTH (dat_ep_post_recv(3DAT)): a message larger than the receive; the sender sees DAT_DTO_ERR_REMOTE_RESPONDER")
    void shouldReportLocalLengthWhenMessageExceedsReceive(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            c.b().postRecv(p.b.iov(0, 16), 140, DEFAULT);
            c.b().postRecv(p.b.iov(64, 64), 141, DEFAULT);
            c.a().postSend(p.a.iov(0, 64), 142, DEFAULT);
            c.a().postSend(p.a.iov(0, 8), 143, DEFAULT);
            nextDto(p.b.dto, c.b(), 140, DtoCompletionStatus.ERR_LOCAL_LENGTH);
            nextDto(p.a.dto, c.a(), 142, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
            // Once one fails, every later one fails (dat_ep_disconnect(3DAT)): the connection is broken.
            nextDto(p.a.dto, c.a(), 143, DtoCompletionStatus.ERR_FLUSHED);
            nextDto(p.b.dto, c.b(), 141, DtoCompletionStatus.ERR_FLUSHED);
            expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
            expectConnection(p.b.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_LOCAL_PROTECTION (dat_lmr_free(3DAT)): a receive into a freed LMR; the sender sees DAT_DTO_ERR_REMOTE_RESPONDER")
    void shouldReportLocalProtectionWhenReceiveLmrWasFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            LocalMemoryRegion extra = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocateDirect(4096)), p.b.pz, MemoryPrivilege.all());
            c.b().postRecv(ObjectFixtures.seg(extra, 0, 128), 150, DEFAULT);
            extra.free();
            c.a().postSend(p.a.iov(0, 64), 151, DEFAULT);
            nextDto(p.b.dto, c.b(), 150, DtoCompletionStatus.ERR_LOCAL_PROTECTION);
            nextDto(p.a.dto, c.a(), 151, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        }
    }

    @Test
    @DisplayName(
            "DAT_DTO_ERR_LOCAL_PROTECTION (dat_lmr_free(3DAT)): a send from an LMR freed before the fabric took the request")
    void shouldReportLocalProtectionWhenSendLmrIsFreedBeforeTheFabricRuns() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            Connected c = connect(p);
            c.b().postRecv(p.b.iov(0, 128), 160, DEFAULT);
            LocalMemoryRegion extra = p.a.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocateDirect(4096)), p.a.pz, MemoryPrivilege.all());
            c.a().postSend(ObjectFixtures.seg(extra, 0, 64), 161, DEFAULT);
            extra.free(); // the deterministic fabric has not run since the post
            nextDto(p.a.dto, c.a(), 161, DtoCompletionStatus.ERR_LOCAL_PROTECTION);
            expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    /** Ways a peer's RDMA request can be refused at the target. */
    enum BadRemote {
        WRONG_RMR_CONTEXT,
        OUT_OF_BOUNDS,
        NO_REMOTE_WRITE_PRIVILEGE,
        FREED_LMR
    }

    @ParameterizedTest
    @EnumSource(BadRemote.class)
    @DisplayName(
            "DAT_DTO_ERR_REMOTE_ACCESS (dat_ep_post_rdma_write/read(3DAT), dat_lmr_free(3DAT)): a bad RMR triplet fails and touches nothing")
    void shouldReportRemoteAccessWhenRmrTripletIsBad(BadRemote kind) {
        for (DatPair.Mode mode : DatPair.Mode.values()) {
            try (DatPair p = DatPair.open(mode)) {
                Connected c = connect(p);
                ByteBuffer target = ByteBuffer.allocateDirect(4096);
                Set<MemoryPrivilege> priv = kind == BadRemote.NO_REMOTE_WRITE_PRIVILEGE
                        ? EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.REMOTE_READ)
                        : MemoryPrivilege.all();
                LocalMemoryRegion t = p.b.ia.createLmr(new RegionDescription.Virtual(target), p.b.pz, priv);
                int rkey = t.rmrContext().orElseThrow();
                long base = t.registeredAddress();
                RmrTriplet remote = switch (kind) {
                    case WRONG_RMR_CONTEXT -> new RmrTriplet(~rkey, base, 64);
                    case OUT_OF_BOUNDS -> new RmrTriplet(rkey, base + 4096 - 32, 64);
                    case NO_REMOTE_WRITE_PRIVILEGE, FREED_LMR -> new RmrTriplet(rkey, base, 64);
                };
                if (kind == BadRemote.FREED_LMR) {
                    t.free();
                }
                fill(p.a.buf, 0, 64, 5);
                c.a().postRdmaWrite(p.a.iov(0, 64), 170, remote, DEFAULT);
                c.a().postRdmaRead(p.a.iov(1024, 64), 171, remote, DEFAULT);
                nextDto(p.a.dto, c.a(), 170, DtoCompletionStatus.ERR_REMOTE_ACCESS);
                nextDto(p.a.dto, c.a(), 171, DtoCompletionStatus.ERR_FLUSHED);
                assertArrayEquals(new byte[64], bytes(target, 0, 64), "a refused RDMA Write writes nothing");
                expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_REMOTE_ACCESS (dat_ep_post_rdma_read(3DAT)): a read beyond the remote LMR, the local buffer untouched")
    void shouldReportRemoteAccessWhenReadLeavesTheRemoteLmr(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            fill(p.a.buf, 2048, 64, 9);
            byte[] before = bytes(p.a.buf, 2048, 64);
            c.a().postRdmaRead(p.a.iov(2048, 64), 175, p.b.remote(64 * 1024 - 16, 64), DEFAULT);
            nextDto(p.a.dto, c.a(), 175, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            assertArrayEquals(before, bytes(p.a.buf, 2048, 64));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_LOCAL_EP (dat_ep_post_rdma_read(3DAT) USAGE): an RDMA Read to a peer that takes none (max_rdma_read_in 0) can never be issued")
    void shouldReportLocalEpWhenPeerTakesNoRdmaReads(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Endpoint a = p.a.ep();
            Endpoint b = p.b.ep(attrs(p.b).maxRdmaReadIn(0).build());
            p.connect(a, b);
            a.postRdmaRead(p.a.iov(0, 64), 180, p.b.remote(0, 64), DEFAULT);
            a.postSend(p.a.iov(0, 8), 181, DEFAULT);
            nextDto(p.a.dto, a, 180, DtoCompletionStatus.ERR_LOCAL_EP);
            nextDto(p.a.dto, a, 181, DtoCompletionStatus.ERR_FLUSHED);
            expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_TRANSPORT: retries exhausted on a link that loses every request; later DTOs flushed; the connection broken")
    void shouldReportTransportErrorWhenRetriesAreExhausted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            c.b().postRecv(p.b.iov(0, 64), 190, DEFAULT);
            link(p).addFault(FaultRule.drop(PacketMatcher.requests().and(PacketMatcher.from(device(p.a))), 1.0));
            c.a().postSend(p.a.iov(0, 32), 191, DEFAULT);
            c.a().postRdmaWrite(p.a.iov(0, 32), 192, p.b.remote(4096, 32), DEFAULT);
            nextDto(p.a.dto, c.a(), 191, DtoCompletionStatus.ERR_TRANSPORT);
            nextDto(p.a.dto, c.a(), 192, DtoCompletionStatus.ERR_FLUSHED);
            expectConnection(p.a.conn, EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EndpointState.DISCONNECTED, c.a().status().state());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("DAT_DTO_ERR_PARTIAL_PACKET: a receive flushed after part of its message arrived")
    void shouldReportPartialPacketWhenReceiveIsFlushedMidMessage(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode, "mtu=256")) {
            Connected c = connect(p);
            String b = device(p.b).name();
            c.b().postRecv(p.b.iov(0, 2048), 200, DEFAULT);
            c.b().postRecv(p.b.iov(4096, 2048), 201, DEFAULT);
            link(p).addFault(FaultRule.drop(
                    PacketMatcher.opcode(Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST)
                            .and(PacketMatcher.from(device(p.a))),
                    1.0));
            try (EventTestSupport.PacketLog log = new EventTestSupport.PacketLog(EventTestSupport.fabric(p))) {
                c.a().postSend(p.a.iov(0, 1024), 202, DEFAULT);
                await(
                        p.b.ia,
                        () -> log.count(PacketEvent.DELIVERED, b, Opcode.RC_SEND_FIRST) > 0,
                        "the first packet of the message");
            }
            c.b().disconnect(CloseFlag.ABRUPT);
            nextDto(p.b.dto, c.b(), 200, DtoCompletionStatus.ERR_PARTIAL_PACKET);
            nextDto(p.b.dto, c.b(), 201, DtoCompletionStatus.ERR_FLUSHED);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "DAT_DTO_ERR_RECEIVER_NOT_READY is not produced: a send without a receive is retried (RNR retry 7: without limit) until one is posted")
    void shouldWaitForReceiveWhenNoneIsPosted(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            Connected c = connect(p);
            c.a().postSend(p.a.iov(0, 48), 210, DEFAULT);
            // Deterministic: 10 s of virtual time, far beyond 7 RNR retries of 655 ms; threaded: a short look.
            Timeout look = mode == DatPair.Mode.DETERMINISTIC ? Timeout.ofMillis(10_000) : Timeout.ofMillis(100);
            assertTrue(p.a.dto.waitForEvent(look, 1).isTimedOut(), "no completion while the receiver has no buffer");
            assertEquals(EndpointState.CONNECTED, c.a().status().state());
            c.b().postRecv(p.b.iov(0, 64), 211, DEFAULT);
            nextDto(p.a.dto, c.a(), 210, DtoCompletionStatus.SUCCESS);
            assertEquals(
                    48,
                    nextDto(p.b.dto, c.b(), 211, DtoCompletionStatus.SUCCESS).transferredLength());
        }
    }

    @Test
    @DisplayName("Statuses: every verbs work completion status has one DAT DTO completion status")
    void shouldMapEveryVerbsStatusWhenTranslatingCompletions() {
        Map<WcStatus, DtoCompletionStatus> expected = new EnumMap<>(WcStatus.class);
        for (WcStatus s : WcStatus.values()) {
            expected.put(s, DtoCompletionStatus.ERR_TRANSPORT);
        }
        expected.put(WcStatus.SUCCESS, DtoCompletionStatus.SUCCESS);
        expected.put(WcStatus.WR_FLUSH_ERR, DtoCompletionStatus.ERR_FLUSHED);
        expected.put(WcStatus.LOC_LEN_ERR, DtoCompletionStatus.ERR_LOCAL_LENGTH);
        expected.put(WcStatus.LOC_QP_OP_ERR, DtoCompletionStatus.ERR_LOCAL_EP);
        expected.put(WcStatus.LOC_EEC_OP_ERR, DtoCompletionStatus.ERR_LOCAL_EP);
        expected.put(WcStatus.LOC_PROT_ERR, DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        expected.put(WcStatus.LOC_ACCESS_ERR, DtoCompletionStatus.ERR_LOCAL_PROTECTION);
        expected.put(WcStatus.MW_BIND_ERR, DtoCompletionStatus.RMR_OPERATION_FAILED);
        expected.put(WcStatus.BAD_RESP_ERR, DtoCompletionStatus.ERR_BAD_RESPONSE);
        expected.put(WcStatus.REM_ACCESS_ERR, DtoCompletionStatus.ERR_REMOTE_ACCESS);
        expected.put(WcStatus.REM_INV_REQ_ERR, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        expected.put(WcStatus.REM_OP_ERR, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        expected.put(WcStatus.REM_INV_RD_REQ_ERR, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        expected.put(WcStatus.REM_ABORT_ERR, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
        expected.put(WcStatus.RNR_RETRY_EXC_ERR, DtoCompletionStatus.ERR_RECEIVER_NOT_READY);
        for (WcStatus s : WcStatus.values()) {
            assertEquals(expected.get(s), Statuses.of(s, 0), () -> "DAT status of " + s);
        }
        assertEquals(
                DtoCompletionStatus.ERR_PARTIAL_PACKET,
                Statuses.of(WcStatus.WR_FLUSH_ERR, WorkCompletion.VENDOR_ERR_PARTIAL_MESSAGE));
        assertEquals(
                DtoCompletionStatus.ERR_LOCAL_LENGTH,
                Statuses.of(WcStatus.LOC_LEN_ERR, WorkCompletion.VENDOR_ERR_PARTIAL_MESSAGE),
                "the partial-message mark only qualifies a flush");
    }

    // ------------------------------------------------------------------ many outstanding

    private enum Op {
        SEND,
        WRITE,
        READ
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_evd_dequeue(3DAT), dat_ep_post_*(3DAT): a seeded mix of many outstanding DTOs completes each cookie once, in post order")
    void shouldCompleteEveryCookieExactlyOnceWhenManyDtosAreOutstanding(DatPair.Mode mode) {
        final int maxRequests = 16;
        final int maxRecvs = 32;
        final int total = 600;
        try (DatPair p = DatPair.open(mode)) {
            Endpoint a = p.a.ep(attrs(p.a).maxRequestDtos(maxRequests).build());
            Endpoint b = p.b.ep(attrs(p.b).maxRecvDtos(maxRecvs).build());
            p.connect(a, b);
            Random rnd = new Random(0x5EED_D70L);
            ArrayDeque<Long> posted = new ArrayDeque<>(); // request cookies not yet retired, in post order
            ArrayDeque<Long> expectedRecvLengths = new ArrayDeque<>();
            Set<Long> suppressed = new HashSet<>();
            Map<Long, Long> lengths = new java.util.HashMap<>();
            Set<Long> seen = new HashSet<>();
            List<Long> completedOrder = new ArrayList<>();
            int recvsOutstanding = 0;
            long nextRecvCookie = 1_000_000;
            long expectedRecvCookie = nextRecvCookie;
            int recvCompletions = 0;
            int sends = 0;

            for (long cookie = 0; cookie < total; cookie++) {
                Op op = Op.values()[rnd.nextInt(Op.values().length)];
                int len = op == Op.READ ? 1 + rnd.nextInt(2048) : rnd.nextInt(2049);
                // Suppressed requests retire silently; keep the newest one signalled when the window is about full.
                boolean suppress = rnd.nextInt(6) == 0 && posted.size() < maxRequests - 1;
                while (posted.size() >= maxRequests) {
                    retire(nextDto(p.a.dto), a, posted, suppressed, lengths, seen, completedOrder);
                }
                if (op == Op.SEND) {
                    while (recvsOutstanding >= maxRecvs) {
                        DtoCompletionEvent r = nextDto(p.b.dto);
                        assertDto(r, p.b.dto, b, expectedRecvCookie++, DtoCompletionStatus.SUCCESS);
                        assertEquals(expectedRecvLengths.poll(), r.transferredLength(), "receive length of " + r);
                        recvsOutstanding--;
                        recvCompletions++;
                    }
                    b.postRecv(p.b.iov(40000, 2048), nextRecvCookie++, DEFAULT);
                    recvsOutstanding++;
                    expectedRecvLengths.add((long) len);
                    sends++;
                }
                EnumSet<CompletionFlag> f = suppress ? flags(CompletionFlag.SUPPRESS) : DEFAULT;
                switch (op) {
                    case SEND -> a.postSend(p.a.iov(0, len), cookie, f);
                    case WRITE -> a.postRdmaWrite(p.a.iov(0, len), cookie, p.b.remote(8192, len), f);
                    case READ -> a.postRdmaRead(p.a.iov(16384, len), cookie, p.b.remote(24576, len), f);
                    default -> throw new AssertionError(op);
                }
                posted.add(cookie);
                lengths.put(cookie, (long) len);
                if (suppress) {
                    suppressed.add(cookie);
                }
            }
            while (posted.stream().anyMatch(x -> !suppressed.contains(x))) {
                retire(nextDto(p.a.dto), a, posted, suppressed, lengths, seen, completedOrder);
            }
            while (recvCompletions < sends) {
                DtoCompletionEvent r = nextDto(p.b.dto);
                assertDto(r, p.b.dto, b, expectedRecvCookie++, DtoCompletionStatus.SUCCESS);
                assertEquals(expectedRecvLengths.poll(), r.transferredLength(), "receive length of " + r);
                recvCompletions++;
            }
            Set<Long> signalled = new HashSet<>();
            for (long x = 0; x < total; x++) {
                if (!suppressed.contains(x)) {
                    signalled.add(x);
                }
            }
            assertEquals(signalled, seen, "every signalled cookie exactly once, no suppressed one");
            assertEquals(signalled.size(), completedOrder.size());
            for (int i = 1; i < completedOrder.size(); i++) {
                assertTrue(completedOrder.get(i) > completedOrder.get(i - 1), "request completions in post order");
            }
            assertFalse(suppressed.isEmpty(), "the mix holds suppressed requests");
            assertTrue(p.a.dto.waitForEvent(Timeout.ofMillis(1), 1).isTimedOut(), "nothing more on the request EVD");
            assertEquals(0, queued(p.b.dto), "nothing more on the receive EVD");
        }
    }

    private static void retire(
            DtoCompletionEvent e,
            Endpoint a,
            ArrayDeque<Long> posted,
            Set<Long> suppressed,
            Map<Long, Long> lengths,
            Set<Long> seen,
            List<Long> order) {
        assertSame(a, e.ep());
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "" + e);
        assertEquals(lengths.get(e.userCookie()), e.transferredLength(), () -> "transferred length of " + e);
        assertFalse(suppressed.contains(e.userCookie()), () -> "a suppressed request completed: " + e);
        assertTrue(seen.add(e.userCookie()), () -> "cookie completed twice: " + e);
        order.add(e.userCookie());
        // An RC send queue completes in order: this completion retires every earlier (suppressed) request.
        while (!posted.isEmpty() && posted.peek() <= e.userCookie()) {
            long x = posted.poll();
            if (x != e.userCookie()) {
                assertTrue(suppressed.contains(x), () -> "cookie " + x + " was skipped before " + e);
            }
        }
    }
}
