package io.simrdma.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Fixed action sequences the model once misread, replayed against sim-provider on the deterministic fabric: each
 * must pass (the seeds that found them, shrunk and written as actions, so that a later change of the generator
 * does not lose them).
 */
class ModelSequenceTest {

    private static final EnumSet<CompletionFlag> NONE = EnumSet.noneOf(CompletionFlag.class);

    private static List<Action> twoEps() {
        List<Action> l = new ArrayList<>();
        l.add(new IaActions.IaOpen(0));
        l.add(new EvdActions.EvdCreate(
                "ia0", "evd1", 128, null, EnumSet.of(EvdFlag.CR, EvdFlag.DTO, EvdFlag.CONNECTION)));
        l.add(new IaActions.PzCreate("ia0", "pz2"));
        EnumSet<MemoryPrivilege> rw = EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE);
        l.add(new IaActions.LmrCreate("ia0", "lmr3", "pz2", 1024, false, false, rw, null));
        l.add(new IaActions.LmrCreate("ia0", "lmr4", "pz2", 1024, false, false, rw, null));
        l.add(new EpActions.EpCreate("ia0", "ep5", "pz2", "evd1", "evd1", "evd1", null, null));
        l.add(new EpActions.EpCreate("ia0", "ep6", "pz2", "evd1", "evd1", "evd1", null, null));
        return l;
    }

    private static void waits(List<Action> l, int n) {
        for (int i = 0; i < n; i++) {
            l.add(new EvdActions.EvdWait("evd1", 1, true, false));
        }
    }

    private static void assertConforms(long seed, List<Action> seq) {
        SuiteConfig config =
                SuiteConfig.builder("sim:ms{run}/ia{ia}?seed={seed}").build();
        ConformanceSuite.Outcome o =
                ConformanceSuite.replay(ConformanceSuite.settings(config, config.template()), seed, seq);
        assertFalse(
                o.run().failed(),
                () -> "expected every check to hold, seen " + o.run().failure.getMessage() + "\n"
                        + String.join("\n", o.run().log));
    }

    /** A receive on lmr3, lmr3 freed, the receiving EP reserved by an RSP (or connecting), a Send into it. */
    private static List<Action> freedReceive(boolean passive) {
        List<Action> l = twoEps();
        l.add(new DtoActions.PostRecv(passive ? "ep5" : "ep6", List.of(Tri.of("lmr3", 0, 8)), 77, NONE));
        l.add(new IaActions.LmrFree("lmr3"));
        l.add(new EpActions.RspCreate("ia0", "rsp7", 111, "ep5", "evd1"));
        l.add(new EpActions.EpConnect("ep6", "ia0", 111, 0, 1, false, Qos.BEST_EFFORT, false));
        waits(l, 1);
        l.add(new EpActions.CrAccept("cr6_1", null, 0, 1));
        waits(l, 2);
        l.add(new DtoActions.PostSend(passive ? "ep6" : "ep5", List.of(Tri.of("lmr4", 0, 4)), 5, NONE, 1));
        waits(l, 4);
        l.add(new EpActions.EpQuery("ep5"));
        l.add(new EpActions.EpQuery("ep6"));
        return l;
    }

    @Test
    @DisplayName("dat_lmr_free(3DAT): a receive posted on an EP with no connection and an LMR freed since breaks no "
            + "connection while the EP is RESERVED and its request arrives (seed 2651)")
    void shouldNotBreakConnectionWhenReceiveOfFreedLmrWaitsOnReservedEp() {
        assertConforms(2651, freedReceive(true));
    }

    @Test
    @DisplayName("dat_lmr_free(3DAT): \"Any DTO operation that uses the destroyed LMR after the dat_lmr_free() is "
            + "completed shall fail\": a Send of a later connection into that receive fails it and may break the "
            + "connection")
    void shouldFailReceiveAndMayBreakWhenMessageLandsInReceiveOfFreedLmr() {
        assertConforms(1, freedReceive(false));
    }

    @Test
    @DisplayName("dat_lmr_free(3DAT) and ep-state-machine.md 2.9: a peer whose connection a remote access error "
            + "broke gets no second end when the other EP is freed (seed 2336)")
    void shouldNotAwaitSecondEndWhenPeerOfFreedEpAlreadyBroke() {
        List<Action> l = twoEps();
        l.add(new EpActions.PspCreate("ia0", "psp7", 120, "evd1", PspFlag.PROVIDER, false));
        l.add(new EpActions.EpConnect("ep6", "ia0", 120, 0, 1, false, Qos.BEST_EFFORT, false));
        waits(l, 1);
        l.add(new EpActions.CrQuery("cr6_1"));
        l.add(new EpActions.EpModifyAction("cr6_1ep", EpActions.ModKind.PZ, "pz2", 0));
        l.add(new EpActions.CrAccept("cr6_1", null, 0, 1));
        l.add(new EvdActions.EvdWait("evd1", 1, false, false));
        l.add(new EvdActions.Settle(2));
        // an rmr_context ep6 never handed out, from an EP without a request EVD (its completion is not seen)
        l.add(new DtoActions.PostRdma(
                "cr6_1ep", List.of(Tri.of("lmr4", 0, 1)), 9, new M.Remote(null, 400, 0, 1), NONE, false, 1));
        l.add(new EvdActions.Settle(2));
        // ep6's BROKEN, dequeued before the free
        l.add(new EvdActions.EvdWait("evd1", 1, false, false));
        l.add(new EpActions.EpFree("cr6_1ep"));
        waits(l, 1);
        l.add(new EpActions.EpQuery("ep6"));
        assertConforms(2336, l);
    }

    @Test
    @DisplayName("dat_ep_free(3DAT): \"The Consumer must be ready for all completions that are not dequeued yet either "
            + "still being on the Endpoint recv_evd_handle and request_evd_handle or not being there\": the connection "
            + "events an EP the model does not follow had queued may still be dequeued after its free (seed 704)")
    void shouldAllowQueuedEventsWhenEpTheModelDoesNotFollowIsFreed() {
        List<Action> l = new ArrayList<>();
        l.add(new IaActions.IaOpen(0));
        l.add(new IaActions.PzCreate("ia0", "pz3"));
        l.add(new EvdActions.EvdCreate("ia0", "evd12", 128, null, EnumSet.allOf(EvdFlag.class)));
        l.add(new EpActions.EpCreate("ia0", "ep18", "pz3", null, null, null, null, null));
        l.add(new EpActions.EpCreate("ia0", "ep19", "pz3", null, null, "evd12", null, null));
        l.add(new EpActions.PspCreate("ia0", "psp21", 101, "evd12", PspFlag.CONSUMER, false));
        l.add(new EpActions.EpConnect("ep18", "ia0", 101, 0, 4, false, Qos.BEST_EFFORT, false));
        EnumSet<MemoryPrivilege> all = EnumSet.allOf(MemoryPrivilege.class);
        l.add(new IaActions.LmrCreate("ia0", "lmr22", "pz3", 1024, false, false, all, null));
        l.add(new EvdActions.EvdWait("evd12", 1, false, false));
        l.add(new EpActions.CrAccept("cr18_1", "ep19", 0, 5));
        l.add(new EvdActions.Settle(1));
        // beyond lmr22's 1024 bytes, from an EP without a request EVD: ep19's connection breaks unseen by the model
        l.add(new DtoActions.PostRdma(
                "ep18", List.of(Tri.of("lmr22", 244, 1)), 1004, new M.Remote("lmr22", null, 3002, 1), NONE, false, 1));
        l.add(new EvdActions.Settle(5));
        l.add(new EpActions.EpFree("ep19"));
        l.add(new EvdActions.EvdWait("evd12", 1, false, false));
        assertConforms(704, l);
    }
}
