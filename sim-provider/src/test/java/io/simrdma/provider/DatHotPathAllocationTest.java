package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EventSlot;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.RmrTriplet;
import java.lang.management.ManagementFactory;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The DAT data path allocates nothing per DTO in steady state beyond the objects the DAT API hands
 * back, as the verbs layer allocates nothing (sim-fabric's HotPathAllocationTest). Counted, not
 * timed: on a deterministic fabric the test's thread runs the whole engine, so its allocated-bytes
 * counter covers every post, packet, completion and dequeue.
 *
 * <p>A DTO posted with DAT_COMPLETION_SUPPRESS_FLAG that succeeds produces no event
 * (dat_ep_post_rdma_write(3DAT)), and must cost nothing; one that completes with an event costs
 * only that event and the {@code Optional} dat_evd_dequeue returns it in
 * ({@value #EVENT_BYTES} bytes with compressed references: the record's header and fields, and the
 * Optional's).
 */
class DatHotPathAllocationTest {

    /** A DtoCompletionEvent (12-byte header, two references, cookie, status, length) and an Optional. */
    static final int EVENT_BYTES = 40 + 16;
    /**
     * What a round may cost beyond its events: the thread's counter also sees rare growth of shared
     * structures, about a byte per round spread over a run (sim-fabric's test allows 8 per packet).
     */
    static final int SLACK = 8;

    private static final Set<CompletionFlag> SIGNALLED = EnumSet.noneOf(CompletionFlag.class);
    private static final Set<CompletionFlag> SUPPRESSED = EnumSet.of(CompletionFlag.SUPPRESS);
    private static final int BATCH = 16;

    private DatPair pair;
    private Endpoint a;
    private Endpoint b;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @BeforeEach
    void connect() {
        pair = DatPair.open(DatPair.Mode.DETERMINISTIC);
        a = pair.a.ep();
        b = pair.b.ep();
        pair.connect(a, b);
    }

    @AfterEach
    void close() {
        pair.close();
    }

    /** Waits for one DTO completion by polling (dat_evd_dequeue), as a busy consumer does. */
    private static DtoCompletionEvent dequeue(DatPair.Side s) {
        while (true) {
            Optional<DatEvent> e = s.dto.dequeue();
            if (e.isPresent()) {
                DtoCompletionEvent d = (DtoCompletionEvent) e.get();
                if (d.status() != DtoCompletionStatus.SUCCESS) {
                    throw new AssertionError("DTO failed: " + d);
                }
                return d;
            }
        }
    }

    private interface Round {
        void run(int round);
    }

    /**
     * Bytes allocated per round of {@code op}, after as many rounds of warm-up: the least of three
     * windows of {@code rounds} rounds. A class the JVM loads for the first time inside a window
     * (the fabric's {@code DropReason} and {@code FabricObserver} were first loaded there in runs on
     * a loaded machine, on main's code too) is instrumented by the coverage agent on this thread:
     * 60-120 KB counted against that window only. An allocation per round shows in every window.
     */
    private static double perRound(Round op, int rounds) {
        int round = 0;
        for (; round < rounds; round++) {
            op.run(round);
        }
        double least = Double.MAX_VALUE;
        for (int window = 0; window < 3; window++) {
            long before = allocatedBytes();
            for (int i = 0; i < rounds; i++, round++) {
                op.run(round);
            }
            least = Math.min(least, (allocatedBytes() - before) / (double) rounds);
        }
        return least;
    }

    private Round batch(boolean write) {
        List<LmrTriplet> local = pair.a.iov(0, 4096);
        RmrTriplet remote = pair.b.remote(8192, 4096);
        return round -> {
            for (int i = 0; i < BATCH; i++) {
                Set<CompletionFlag> f = i == BATCH - 1 ? SIGNALLED : SUPPRESSED;
                if (write) {
                    a.postRdmaWrite(local, round * BATCH + i, remote, f);
                } else {
                    a.postRdmaRead(local, round * BATCH + i, remote, f);
                }
            }
            assertEquals(round * BATCH + BATCH - 1, dequeue(pair.a).userCookie());
        };
    }

    @Test
    @DisplayName(
            "dat_ep_post_rdma_write(3DAT): RDMA WRITEs with SUPPRESS allocate nothing; a batch of 16 costs one event")
    void shouldAllocateOnlyTheEventWhenWritingInSteadyState() {
        double bytes = perRound(batch(true), 2_000);
        assertTrue(
                bytes <= EVENT_BYTES + SLACK,
                "RDMA WRITE: " + bytes + " bytes allocated per batch of " + BATCH
                        + " DTOs (one with an event); expected at most " + EVENT_BYTES);
    }

    @Test
    @DisplayName(
            "dat_ep_post_rdma_read(3DAT): RDMA READs with SUPPRESS allocate nothing; a batch of 16 costs one event")
    void shouldAllocateOnlyTheEventWhenReadingInSteadyState() {
        double bytes = perRound(batch(false), 2_000);
        assertTrue(
                bytes <= EVENT_BYTES + SLACK,
                "RDMA READ: " + bytes + " bytes allocated per batch of " + BATCH
                        + " DTOs (one with an event); expected at most " + EVENT_BYTES);
    }

    @Test
    @DisplayName("dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT): a SEND and its receive cost their two events only")
    void shouldAllocateOnlyTheEventsWhenSendingInSteadyState() {
        List<LmrTriplet> out = pair.a.iov(0, 64);
        List<LmrTriplet> in = pair.b.iov(0, 64);
        double bytes = perRound(
                round -> {
                    b.postRecv(in, round, SIGNALLED);
                    a.postSend(out, round, SIGNALLED);
                    assertEquals(round, dequeue(pair.a).userCookie());
                    assertEquals(round, dequeue(pair.b).userCookie());
                },
                2_000);
        assertTrue(
                bytes <= 2 * EVENT_BYTES + SLACK,
                "SEND/RECV: " + bytes + " bytes allocated per message; expected at most " + 2 * EVENT_BYTES
                        + " (the send's and the receive's events)");
    }

    /** Waits for one DTO completion by polling dat_evd_dequeue into caller-owned storage. */
    private static long dequeueInto(DatPair.Side s, EventSlot slot) {
        while (!s.dto.dequeue(slot)) {
            // poll
        }
        if (!slot.isDtoCompletion() || slot.status() != DtoCompletionStatus.SUCCESS) {
            throw new AssertionError("DTO failed: " + slot);
        }
        return slot.userCookie();
    }

    @Test
    @DisplayName(
            "dat_evd_dequeue(3DAT) into a caller's DAT_EVENT (EventSlot): a SEND, its receive and an RDMA WRITE batch "
                    + "allocate nothing at all")
    void shouldAllocateNothingWhenDequeuingIntoASlot() {
        List<LmrTriplet> out = pair.a.iov(0, 64);
        List<LmrTriplet> in = pair.b.iov(0, 64);
        List<LmrTriplet> local = pair.a.iov(0, 4096);
        RmrTriplet remote = pair.b.remote(8192, 4096);
        EventSlot slotA = new EventSlot();
        EventSlot slotB = new EventSlot();
        double bytes = perRound(
                round -> {
                    b.postRecv(in, round, SIGNALLED);
                    a.postSend(out, round, SIGNALLED);
                    assertEquals(round, dequeueInto(pair.a, slotA));
                    assertEquals(round, dequeueInto(pair.b, slotB));
                    for (int i = 0; i < BATCH; i++) {
                        a.postRdmaWrite(local, round * BATCH + i, remote, i == BATCH - 1 ? SIGNALLED : SUPPRESSED);
                    }
                    assertEquals(round * BATCH + BATCH - 1, dequeueInto(pair.a, slotA));
                },
                2_000);
        assertTrue(
                bytes <= SLACK,
                "SEND/RECV and a WRITE batch: " + bytes + " bytes allocated per round with dequeue(EventSlot); "
                        + "expected none beyond the slack of " + SLACK);
    }
}
