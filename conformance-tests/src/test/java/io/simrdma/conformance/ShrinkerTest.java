package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
                s.sequence().size() <= 15,
                "expected at most 15 actions (IA, PZ, EVD, LMR, PSP, two EPs, connect, wait, accept, wait, post, "
                        + "disconnect, wait, dequeue), got " + s.sequence().size() + ": " + s.sequence());
        ConformanceSuite.Outcome again = ConformanceSuite.replay(settings, 1, s.sequence());
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
