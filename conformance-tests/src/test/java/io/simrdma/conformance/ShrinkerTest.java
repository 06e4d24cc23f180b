package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.EvdFlag;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The shrinker: the variants it tries, and that a shrunk sequence fails with the same rule, is short and
 * replays exactly, also against a provider whose bug depends on how many events it has delivered.
 */
class ShrinkerTest {

    @Test
    @DisplayName("dat_ep_create_with_srq(3DAT) and dat_ep_create(3DAT): a variant drops an optional reference (the "
            + "SRQ, an EVD, the attributes) but never the IA or the symbol the action creates")
    void shouldOfferVariantWithoutOptionalReferenceWhenActionNamesOne() {
        EpActions.EpCreate a = new EpActions.EpCreate("ia0", "ep3", "pz1", "evd2", "evd2", "evd2", null, "srq4");
        List<Action> v = Shrinker.variants(a);
        assertTrue(
                v.contains(new EpActions.EpCreate("ia0", "ep3", "pz1", "evd2", "evd2", "evd2", null, null)),
                "expected a variant without the SRQ among " + v);
        assertTrue(
                v.contains(new EpActions.EpCreate("ia0", "ep3", "pz1", null, "evd2", "evd2", null, "srq4")),
                "expected a variant without the recv EVD among " + v);
        for (Action b : v) {
            EpActions.EpCreate e = (EpActions.EpCreate) b;
            assertEquals("ia0", e.ia(), "a variant keeps the IA: " + e);
            assertEquals("ep3", e.sym(), "a variant keeps the symbol it creates: " + e);
        }
    }

    @Test
    @DisplayName("dat_evd_create(3DAT): an EVD's flags are emptied or made full (so two EVDs can merge); an empty set "
            + "is not made full again, so no two variants undo each other")
    void shouldOfferFullAndEmptyFlagsWhenEvdHasSomeButNotRefillEmpty() {
        EvdActions.EvdCreate some = new EvdActions.EvdCreate("ia0", "evd1", 8, null, EnumSet.of(EvdFlag.DTO));
        List<Action> v = Shrinker.variants(some);
        assertTrue(
                v.contains(new EvdActions.EvdCreate("ia0", "evd1", 8, null, EnumSet.allOf(EvdFlag.class))),
                "expected full flags among " + v);
        assertTrue(
                v.contains(new EvdActions.EvdCreate("ia0", "evd1", 8, null, EnumSet.noneOf(EvdFlag.class))),
                "expected no flags among " + v);
        EvdActions.EvdCreate none = new EvdActions.EvdCreate("ia0", "evd1", 8, null, EnumSet.noneOf(EvdFlag.class));
        assertTrue(Shrinker.variants(none).isEmpty(), "an EVD without flags or CNO has no variant: " + none);
    }

    @Test
    @DisplayName("dat_ep_post_rdma_read(3DAT): a transfer's variants start at offset 0 of the local and remote "
            + "buffers, so a smaller LMR can stand for the one it names")
    void shouldOfferTransferAtOffsetZeroWhenItStartsLater() {
        DtoActions.PostRdma a = new DtoActions.PostRdma(
                "ep1",
                List.of(Tri.of("lmr2", 100, 1)),
                7,
                new M.Remote("lmr3", null, 40, 1),
                EnumSet.noneOf(io.simrdma.dat.CompletionFlag.class),
                true,
                0);
        assertTrue(
                Shrinker.variants(a)
                        .contains(new DtoActions.PostRdma(
                                "ep1",
                                List.of(Tri.of("lmr2", 0, 1)),
                                7,
                                new M.Remote("lmr3", null, 0, 1),
                                a.flags(),
                                true,
                                0)),
                "expected the transfer at offset 0 among " + Shrinker.variants(a));
    }

    @Test
    @DisplayName("dat_ep_post_recv(3DAT) and dat_ep_post_send(3DAT): num_segments \"can be 0\"; a post of one segment "
            + "offers a post of none first, so the LMR it names may go")
    void shouldOfferZeroSegmentsWhenPostHasOne() {
        DtoActions.PostRecv one =
                new DtoActions.PostRecv("ep1", List.of(Tri.of("lmr2", 0, 1)), 5, EnumSet.noneOf(CompletionFlag.class));
        List<Action> v = Shrinker.variants(one);
        assertFalse(v.isEmpty(), "a post of one segment has variants");
        assertEquals(
                new DtoActions.PostRecv("ep1", List.of(), 5, one.flags()),
                v.get(0),
                "expected the zero-segment post first among " + v);
        DtoActions.PostSend two =
                new DtoActions.PostSend("ep1", List.of(Tri.of("lmr2", 0, 1), Tri.of("lmr2", 1, 1)), 5, one.flags(), 0);
        assertFalse(
                Shrinker.variants(two).contains(new DtoActions.PostSend("ep1", List.of(), 5, one.flags(), 0)),
                "two segments first become one, not none: " + Shrinker.variants(two));
    }

    @Test
    @DisplayName("dat_ep_post_rdma_write(3DAT): an RDMA's first variant is a zero-length one that names no LMR "
            + "(num_segments 0, a remote buffer of length 0), so the LMRs it named may go")
    void shouldOfferZeroLengthRdmaWhenRdmaNamesAnLmr() {
        DtoActions.PostRdma a = new DtoActions.PostRdma(
                "ep1",
                List.of(Tri.of("lmr2", 0, 1)),
                7,
                new M.Remote("lmr3", null, 0, 1),
                EnumSet.noneOf(CompletionFlag.class),
                false,
                0);
        DtoActions.PostRdma none =
                new DtoActions.PostRdma("ep1", List.of(), 7, new M.Remote(null, 0, 0, 0), a.flags(), false, 0);
        assertEquals(none, Shrinker.variants(a).get(0), "expected the zero-length RDMA first: " + Shrinker.variants(a));
        assertFalse(Shrinker.variants(none).contains(none), "a zero-length RDMA is not offered again");
    }

    @Test
    @DisplayName("dat_evd_wait(3DAT), dat_cno_wait(3DAT): a wait's stand-in is a wait on the IA's clock, and a "
            + "reference moves only to an object of its kind created earlier (the IA's async EVD for a dequeue)")
    void shouldOfferStandInsNamingEarlierObjectsWhenActionNamesALaterOne() {
        List<Action> seq = List.of(
                new IaActions.IaOpen(0),
                new EvdActions.EvdCreate("ia0", "evd1", 8, null, EnumSet.allOf(EvdFlag.class)),
                new EvdActions.EvdCreate("ia0", "evd2", 8, null, EnumSet.allOf(EvdFlag.class)),
                new EvdActions.EvdCreate("ia0", "evd3", 8, null, EnumSet.allOf(EvdFlag.class)),
                new EvdActions.EvdDequeue("evd2"));
        List<String> earlier = Shrinker.earlierSymbols(seq, 4);
        assertEquals(
                List.of("ia0", "async0", "evd1", "evd2", "evd3"), earlier, "the symbols created before the dequeue");
        List<Action> deq = Shrinker.standIns(seq.get(4), earlier);
        assertEquals(
                List.of(new EvdActions.EvdDequeue("async0"), new EvdActions.EvdDequeue("evd1")),
                deq,
                "a dequeue may name the async EVD or an EVD created earlier, never evd3 (created later)");
        EpActions.EpCreate ep = new EpActions.EpCreate("ia0", "ep4", "pz9", "evd2", "evd2", "evd3", null, null);
        List<Action> eps = Shrinker.standIns(ep, List.of("ia0", "async0", "evd1", "evd2", "evd3"));
        assertTrue(
                eps.contains(new EpActions.EpCreate("ia0", "ep4", "pz9", "evd2", "evd2", "evd1", null, null)),
                "one reference at a time moves (connect_evd evd3 -> evd1): " + eps);
        assertTrue(
                eps.contains(new EpActions.EpCreate("ia0", "ep4", "pz9", "evd2", "evd2", "evd2", null, null)),
                "connect_evd evd3 -> evd2, the recv EVD: " + eps);
        for (Action b : eps) {
            EpActions.EpCreate e = (EpActions.EpCreate) b;
            assertFalse(
                    "async0".equals(e.recv()) || "async0".equals(e.req()) || "async0".equals(e.conn()),
                    "an EP's DTO or connection EVD is never the async EVD: " + e);
        }
        assertEquals(
                List.of(new EvdActions.Settle(1), new EvdActions.EvdWait("async0", 1, false, false)),
                Shrinker.standIns(new EvdActions.EvdWait("evd1", 1, false, false), List.of("ia0", "async0", "evd1")),
                "a wait on the first EVD stands in as a wait on the clock or on the async EVD");
        assertEquals(
                List.of(new EvdActions.Settle(1)),
                Shrinker.standIns(new IaActions.CnoWait("cno5", false), List.of("ia0", "async0", "cno5")),
                "a CNO wait stands in as a wait on the clock, so the CNO may go");
    }

    @Test
    @DisplayName("a mutant that loses the second DTO completion dequeued (dat_evd_dequeue(3DAT)) fails a replay of its "
            + "sequence exactly as the run did: each run starts the mutation afresh")
    void shouldReplayStatefulMutantExactlyWhenSequenceRepeats() {
        Mutants.Mutant lost = mutant("dto-completion-lost");
        MutantProvider p = new MutantProvider(lost.name(), lost.mutation());
        RunSettings settings = settings(p);
        ConformanceSuite.Outcome o = ConformanceSuite.generate(settings, 10, MutantsTest.ACTIONS);
        assertTrue(o.run().failed(), "seed 10 kills " + lost.name());
        String sig = ConformanceSuite.signature(o.run());
        for (int i = 0; i < 2; i++) {
            ConformanceSuite.Outcome r = ConformanceSuite.replay(settings, 10, o.sequence());
            assertEquals(sig, ConformanceSuite.signature(r.run()), "replay " + i + ": the same failed check");
            assertEquals(o.run().failedAt, r.run().failedAt, "replay " + i + ": fails at the same action");
            assertEquals(calls(o.run()), calls(r.run()), "replay " + i + ": the same calls and outcomes");
        }
    }

    @Test
    @DisplayName(
            "a mutant that completes flushed DTOs as successful (dat_ep_disconnect(3DAT)) shrinks to the few calls "
                    + "that connect, post, disconnect and dequeue, failing the same rule and replaying exactly")
    void shouldShrinkToFewActionsWhenTransferMutantFails() {
        Mutants.Mutant flushed = mutant("flushed-as-success");
        MutantProvider p = new MutantProvider(flushed.name(), flushed.mutation());
        RunSettings settings = settings(p);
        ConformanceSuite.Outcome o = ConformanceSuite.generate(settings, 1, MutantsTest.ACTIONS);
        assertTrue(o.run().failed(), "seed 1 kills " + flushed.name());
        ConformanceSuite.Outcome s = Shrinker.shrink(settings, 1, o);
        String sig = ConformanceSuite.signature(o.run());
        assertEquals(sig, ConformanceSuite.signature(s.run()), "the shrunk sequence fails the same rule");
        assertTrue(
                s.sequence().size() <= 13,
                "expected at most 13 actions (IA, PZ, EVD, PSP, two EPs, connect, wait, accept, wait, a receive of "
                        + "no segments, disconnect, wait), got " + s.sequence().size() + ": " + s.sequence());
        ConformanceSuite.Outcome again = ConformanceSuite.replay(settings, 1, s.sequence());
        assertEquals(sig, ConformanceSuite.signature(again.run()), "the shrunk sequence replays to the same failure");
        assertEquals(calls(s.run()), calls(again.run()), "and to the same calls and outcomes");
    }

    @Test
    @DisplayName("a mutant that dequeues every third DTO completion twice (dat_evd_dequeue(3DAT): an event is removed "
            + "once dequeued) shrinks to its 13 irreducible calls: an EP without its connect EVD once the dequeue of "
            + "the connection event goes with it, three flushed receives, three dequeues and one of the async EVD")
    void shouldDropTheEventsDequeueWhenAReferenceChangeStopsTheStream() {
        Mutants.Mutant dup = mutant("dto-completion-duplicated");
        MutantProvider p = new MutantProvider(dup.name(), dup.mutation());
        RunSettings settings = settings(p);
        ConformanceSuite.Outcome o = ConformanceSuite.generate(settings, 10, MutantsTest.ACTIONS);
        assertTrue(o.run().failed(), "seed 10 kills " + dup.name());
        ConformanceSuite.Outcome s = Shrinker.shrink(settings, 10, o);
        String sig = ConformanceSuite.signature(o.run());
        assertEquals(sig, ConformanceSuite.signature(s.run()), "the shrunk sequence fails the same rule");
        assertTrue(
                s.sequence().size() <= 13,
                "expected at most 13 actions (IA, EVD, PZ, EP, a connect no one listens to, a wait, three receives "
                        + "flushed, three dequeues of the EVD, a dequeue of the async EVD), got "
                        + s.sequence().size() + ": " + s.sequence());
        for (Action a : s.sequence()) {
            if (a instanceof EpActions.EpCreate e) {
                assertEquals(null, e.conn(), "the EP keeps no connect EVD (its event is no longer dequeued): " + e);
            }
        }
        ConformanceSuite.Outcome again = ConformanceSuite.replay(settings, 10, s.sequence());
        assertEquals(sig, ConformanceSuite.signature(again.run()), "the shrunk sequence replays to the same failure");
        assertEquals(calls(s.run()), calls(again.run()), "and to the same calls and outcomes");
    }

    @Test
    @DisplayName("a mutant that loses the second DTO completion dequeued (dat_evd_dequeue(3DAT): completions of one "
            + "EP's requests come in posting order) shrinks from the 17 calls of a connection with a receive between "
            + "two RDMA writes to 11 without a connection: the receive becomes a copy of the RDMA write beside it, and "
            + "three posts flushed in DISCONNECTED (dat_ep_post_rdma_write(3DAT)) need no peer")
    void shouldCopyANeighbourWhenTheFailureNeedsThreePostsOfOneStream() {
        Mutants.Mutant lost = mutant("dto-completion-lost");
        MutantProvider p = new MutantProvider(lost.name(), lost.mutation());
        RunSettings settings = settings(p);
        EnumSet<CompletionFlag> none = EnumSet.noneOf(CompletionFlag.class);
        M.Remote nowhere = new M.Remote(null, 0, 0, 0);
        List<Action> seq = List.of(
                new IaActions.IaOpen(0),
                new EvdActions.EvdCreate("ia0", "evd2", 57, null, EnumSet.allOf(EvdFlag.class)),
                new IaActions.PzCreate("ia0", "pz5"),
                new EpActions.EpCreate("ia0", "ep17", "pz5", null, null, null, null, null),
                new EpActions.EpCreate("ia0", "ep21", "pz5", "evd2", "evd2", null, null, null),
                new EpActions.PspCreate("ia0", "psp23", 105, "evd2", io.simrdma.dat.PspFlag.CONSUMER, false),
                new EpActions.EpConnect("ep21", "ia0", 105, 0, 8, false, io.simrdma.dat.Qos.BEST_EFFORT, false),
                new EvdActions.EvdWait("evd2", 1, false, false),
                new EpActions.CrAccept("cr21_1", "ep17", 0, 12),
                new EvdActions.Settle(1),
                new DtoActions.PostRdma("ep21", List.of(), 1025, nowhere, none, false, 22),
                new DtoActions.PostRecv("ep21", List.of(), 1026, none),
                new DtoActions.PostSend("ep17", List.of(), 1028, none, 23),
                new DtoActions.PostRdma("ep21", List.of(), 1031, nowhere, none, false, 25),
                new EvdActions.Settle(1),
                new EvdActions.EvdDequeue("evd2"),
                new EvdActions.EvdDequeue("evd2"));
        ConformanceSuite.Outcome o = ConformanceSuite.replay(settings, 10, seq);
        String sig = ConformanceSuite.signature(o.run());
        assertNotNull(sig, "the 17 calls fail with " + lost.name());
        assertTrue(sig.contains("come in posting order"), "the lost completion breaks the posting order: " + sig);
        ConformanceSuite.Outcome s = Shrinker.shrink(settings, 10, o);
        assertEquals(sig, ConformanceSuite.signature(s.run()), "the shrunk sequence fails the same rule");
        assertTrue(
                s.sequence().size() <= 11,
                "expected at most 11 actions (IA, EVD, PZ, EP, a connect no one listens to, a wait, three RDMA writes "
                        + "flushed, two dequeues), got " + s.sequence().size() + ": " + s.sequence());
        assertFalse(
                s.sequence().stream().anyMatch(a -> a instanceof EpActions.PspCreate),
                "no listener: the posts are flushed in DISCONNECTED: " + s.sequence());
        ConformanceSuite.Outcome again = ConformanceSuite.replay(settings, 10, s.sequence());
        assertEquals(sig, ConformanceSuite.signature(again.run()), "the shrunk sequence replays to the same failure");
        assertEquals(calls(s.run()), calls(again.run()), "and to the same calls and outcomes");
    }

    /** A run's transcript, its IA names without the run's number (each run opens IAs of its own). */
    private static List<String> calls(Run run) {
        return run.transcript.stream()
                .map(line -> line.replaceAll("sim:mut[0-9]+/", "sim:mut/"))
                .toList();
    }

    private static Mutants.Mutant mutant(String name) {
        Mutants.Mutant m = Mutants.all().stream()
                .filter(x -> x.name().equals(name))
                .findFirst()
                .orElse(null);
        assertNotNull(m, "mutant " + name);
        assertFalse(m.breaks().isEmpty());
        return m;
    }

    private static RunSettings settings(MutantProvider p) {
        SuiteConfig config = SuiteConfig.builder("sim:mut{run}/ia{ia}?seed={seed}")
                .registry(p.registry())
                .build();
        return ConformanceSuite.settings(config, config.template());
    }
}
