package io.simrdma.fabric;

import static io.simrdma.fabric.QpAttrMask.ACCESS_FLAGS;
import static io.simrdma.fabric.QpAttrMask.ALT_PATH;
import static io.simrdma.fabric.QpAttrMask.AV;
import static io.simrdma.fabric.QpAttrMask.CUR_STATE;
import static io.simrdma.fabric.QpAttrMask.DEST_QPN;
import static io.simrdma.fabric.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.simrdma.fabric.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.simrdma.fabric.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.simrdma.fabric.QpAttrMask.MIN_RNR_TIMER;
import static io.simrdma.fabric.QpAttrMask.PATH_MIG_STATE;
import static io.simrdma.fabric.QpAttrMask.PATH_MTU;
import static io.simrdma.fabric.QpAttrMask.PKEY_INDEX;
import static io.simrdma.fabric.QpAttrMask.PORT;
import static io.simrdma.fabric.QpAttrMask.RETRY_CNT;
import static io.simrdma.fabric.QpAttrMask.RNR_RETRY;
import static io.simrdma.fabric.QpAttrMask.RQ_PSN;
import static io.simrdma.fabric.QpAttrMask.SQ_PSN;
import static io.simrdma.fabric.QpAttrMask.STATE;
import static io.simrdma.fabric.QpAttrMask.TIMEOUT;
import static io.simrdma.fabric.QpState.ERR;
import static io.simrdma.fabric.QpState.INIT;
import static io.simrdma.fabric.QpState.RESET;
import static io.simrdma.fabric.QpState.RTR;
import static io.simrdma.fabric.QpState.RTS;
import static io.simrdma.fabric.QpState.SQD;
import static io.simrdma.fabric.QpState.SQE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.simrdma.fabric.internal.rc.QpTransitions;
import io.simrdma.fabric.wire.Gid;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RC queue pair state machine of ibv_modify_qp(3) and IBA 11.2.5.2 (table 91), checked
 * against a table written here from those sources, over every (from, to) pair of the 7 states:
 * legal transitions succeed with their required attributes, illegal ones fail with EINVAL; a
 * missing required attribute, an attribute the transition does not accept, or an invalid value
 * fails with EINVAL; and after every failed modify, query() shows that NOTHING changed.
 *
 * <p>SQE is not reachable for an RC QP (send queue errors take an RC QP to ERR, IBA 10.3.1), so
 * transitions from SQE are checked against the table only.
 */
class QpStateMachineTest {

    /** Required and optional attributes of a transition (STATE itself excluded). */
    record Rule(Set<QpAttrMask> required, Set<QpAttrMask> optional) {}

    private static final Set<QpAttrMask> NONE = EnumSet.noneOf(QpAttrMask.class);

    /**
     * The RC transitions: the required attributes of ibv_modify_qp(3) ("Next state / Required
     * attributes" for IBV_QPT_RC) and the optional ones of IBA table 91 (as the Linux core encodes
     * them in ib_modify_qp_is_ok). Any state may move to RESET or ERR (IBA 10.3.1; Linux omits
     * RESET -> ERR, the IBA allows it).
     */
    static final Map<QpState, Map<QpState, Rule>> SPEC = new EnumMap<>(QpState.class);

    static {
        for (QpState s : QpState.values()) {
            SPEC.put(s, new EnumMap<>(QpState.class));
            SPEC.get(s).put(RESET, new Rule(NONE, NONE));
            SPEC.get(s).put(ERR, new Rule(NONE, NONE));
        }
        spec(RESET, INIT, EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), NONE);
        spec(INIT, INIT, NONE, EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        spec(
                INIT,
                RTR,
                EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
        spec(
                RTR,
                RTS,
                EnumSet.of(SQ_PSN, MAX_QP_RD_ATOMIC, RETRY_CNT, RNR_RETRY, TIMEOUT),
                EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
        spec(RTS, RTS, NONE, EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
        spec(RTS, SQD, NONE, EnumSet.of(EN_SQD_ASYNC_NOTIFY));
        spec(SQD, RTS, NONE, EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
        spec(
                SQD,
                SQD,
                NONE,
                EnumSet.of(
                        PORT,
                        AV,
                        TIMEOUT,
                        RETRY_CNT,
                        RNR_RETRY,
                        MAX_QP_RD_ATOMIC,
                        MAX_DEST_RD_ATOMIC,
                        ALT_PATH,
                        ACCESS_FLAGS,
                        PKEY_INDEX,
                        MIN_RNR_TIMER,
                        PATH_MIG_STATE));
        spec(SQE, RTS, NONE, NONE); // optional attributes not checked: unreachable for RC
    }

    private static void spec(QpState from, QpState to, Set<QpAttrMask> required, Set<QpAttrMask> optional) {
        SPEC.get(from).put(to, new Rule(required, optional));
    }

    /** States a test can put an RC QP in. */
    static final List<QpState> REACHABLE = List.of(RESET, INIT, RTR, RTS, SQD, ERR);

    // ------------------------------------------------------------------ fixture

    private Fabric fabric;
    private Device dev;
    private Device peer;
    private ProtectionDomain pd;
    private CompletionQueue cq;

    /** A device whose port MTU is 1024 and whose initiator/responder depths are 8/16. */
    private void open(boolean threaded) {
        fabric = threaded ? Fabric.threaded() : Fabric.deterministic(7);
        dev = fabric.createDevice(
                DeviceConfig.named("a").maxMtu(Mtu.MTU_1024).maxQpInitRdAtom(8).maxQpRdAtom(16));
        peer = fabric.createDevice("b");
        pd = dev.allocPd();
        cq = dev.createCq(64);
    }

    @AfterEach
    void close() {
        if (fabric != null) {
            fabric.close();
        }
    }

    private QueuePair newQp() {
        return pd.createQp(QpInitAttr.rc(cq, cq));
    }

    /** Attribute values: those a QP is set up with, and different ones a probing modify uses. */
    enum Values {
        SETUP,
        PROBE
    }

    /** Sets attribute {@code m} of {@code a} to a valid value of {@code v}. */
    private void set(QpAttr a, QpAttrMask m, Values v, QpState current) {
        boolean s = v == Values.SETUP;
        switch (m) {
            case CUR_STATE:
                a.curState(current);
                break;
            case EN_SQD_ASYNC_NOTIFY:
                a.enSqdAsyncNotify(!s);
                break;
            case ACCESS_FLAGS:
                a.accessFlags(
                        s
                                ? EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)
                                : EnumSet.of(AccessFlag.REMOTE_READ));
                break;
            case PKEY_INDEX:
                a.pkeyIndex(0);
                break;
            case PORT:
                a.port(1);
                break;
            case QKEY:
                a.qkey(0x1111);
                break;
            case AV:
                a.av(s ? AhAttr.to(peer.gid()) : new AhAttr(peer.gid(), 0, 9, 4, 77, 3, 1));
                break;
            case PATH_MTU:
                a.pathMtu(s ? Mtu.MTU_1024 : Mtu.MTU_512);
                break;
            case TIMEOUT:
                a.timeout(s ? 14 : 20);
                break;
            case RETRY_CNT:
                a.retryCnt(s ? 7 : 3);
                break;
            case RNR_RETRY:
                a.rnrRetry(s ? 7 : 2);
                break;
            case RQ_PSN:
                a.rqPsn(s ? 0x100 : 0xFFFFFF);
                break;
            case MAX_QP_RD_ATOMIC:
                a.maxRdAtomic(s ? 4 : 8);
                break;
            case ALT_PATH:
                a.altAv(AhAttr.to(peer.gid()));
                break;
            case MIN_RNR_TIMER:
                a.minRnrTimer(s ? 12 : 31);
                break;
            case SQ_PSN:
                a.sqPsn(s ? 0x200 : 0xABCDE);
                break;
            case MAX_DEST_RD_ATOMIC:
                a.maxDestRdAtomic(s ? 4 : 16);
                break;
            case PATH_MIG_STATE:
                a.pathMigState(0); // APM is not supported: the bit alone is refused
                break;
            case CAP:
                a.cap(QpCaps.defaults());
                break;
            case DEST_QPN:
                a.destQpn(s ? 0x123 : 0xFFFFFF);
                break;
            case RATE_LIMIT:
                a.rateLimit(1000);
                break;
            default:
                throw new IllegalArgumentException("state is not an attribute: " + m);
        }
    }

    /** The value {@code m} has in a query, or null for attributes a query does not report. */
    private static Object valueOf(QpAttr q, QpAttrMask m) {
        switch (m) {
            case EN_SQD_ASYNC_NOTIFY:
                return q.enSqdAsyncNotify();
            case ACCESS_FLAGS:
                return q.accessFlags();
            case PKEY_INDEX:
                return q.pkeyIndex();
            case PORT:
                return q.port();
            case AV:
                return q.av();
            case PATH_MTU:
                return q.pathMtu();
            case TIMEOUT:
                return q.timeout();
            case RETRY_CNT:
                return q.retryCnt();
            case RNR_RETRY:
                return q.rnrRetry();
            case RQ_PSN:
                return q.rqPsn();
            case MAX_QP_RD_ATOMIC:
                return q.maxRdAtomic();
            case MIN_RNR_TIMER:
                return q.minRnrTimer();
            case SQ_PSN:
                return q.sqPsn();
            case MAX_DEST_RD_ATOMIC:
                return q.maxDestRdAtomic();
            case DEST_QPN:
                return q.destQpn();
            default:
                return null;
        }
    }

    /** Everything query() reports, to compare before and after a failed modify. */
    record Snapshot(
            QpState state,
            QpState curState,
            Set<AccessFlag> access,
            int pkeyIndex,
            int port,
            AhAttr av,
            Mtu mtu,
            int timeout,
            int retryCnt,
            int rnrRetry,
            int rqPsn,
            int maxRdAtomic,
            int minRnrTimer,
            int sqPsn,
            int maxDestRdAtomic,
            int destQpn,
            boolean sqdNotify,
            boolean sqDraining,
            QpCaps cap) {
        static Snapshot of(QueuePair qp) {
            QpAttr q = qp.query();
            return new Snapshot(
                    q.state(),
                    q.curState(),
                    q.accessFlags(),
                    q.pkeyIndex(),
                    q.port(),
                    q.av(),
                    q.pathMtu(),
                    q.timeout(),
                    q.retryCnt(),
                    q.rnrRetry(),
                    q.rqPsn(),
                    q.maxRdAtomic(),
                    q.minRnrTimer(),
                    q.sqPsn(),
                    q.maxDestRdAtomic(),
                    q.destQpn(),
                    q.enSqdAsyncNotify(),
                    q.sqDraining(),
                    q.cap());
        }
    }

    /** A modify to {@code to} with the given attributes (valid {@code v} values). */
    private QpAttr attrs(QpState current, QpState to, Set<QpAttrMask> masks, Values v) {
        QpAttr a = new QpAttr().state(to);
        for (QpAttrMask m : masks) {
            set(a, m, v, current);
        }
        return a;
    }

    /** Moves {@code qp} from RESET to {@code target} along RESET, INIT, RTR, RTS (SQD, ERR) with SETUP values. */
    private void drive(QueuePair qp, QpState target) {
        QpState[] path = {INIT, RTR, RTS};
        QpState stop = target == SQD || target == ERR ? RTS : target;
        QpState cur = RESET;
        for (QpState next : path) {
            if (cur == stop) {
                break;
            }
            qp.modify(attrs(cur, next, SPEC.get(cur).get(next).required(), Values.SETUP));
            cur = next;
        }
        if (target == SQD || target == ERR) {
            qp.modify(new QpAttr().state(target));
        }
        assertEquals(target, qp.state(), "fixture could not reach " + target);
    }

    private QueuePair qpIn(QpState s) {
        QueuePair qp = newQp();
        drive(qp, s);
        return qp;
    }

    /** Asserts that {@code modify} fails with EINVAL and that query() shows nothing changed. */
    private static void assertRefusedAndUnchanged(QueuePair qp, QpAttr modify, String why) {
        Snapshot before = Snapshot.of(qp);
        VerbsException e = assertThrows(VerbsException.class, () -> qp.modify(modify), why + ": " + modify);
        assertEquals(Errno.EINVAL, e.errno(), why + ": " + e.getMessage());
        assertEquals(before, Snapshot.of(qp), why + ": a failed modify must change nothing");
    }

    // ------------------------------------------------------------------ the table itself

    static Stream<Arguments> allPairs() {
        List<Arguments> l = new ArrayList<>();
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                l.add(Arguments.of(from, to));
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("allPairs")
    @DisplayName(
            "IBA 11.2.5.2 table 91 / ibv_modify_qp(3): QpTransitions holds exactly the legal transitions and their attributes")
    void shouldMatchTheSpecTableForEveryPairOfStates(QpState from, QpState to) {
        Rule expected = SPEC.get(from).get(to);
        QpTransitions.Rule actual = QpTransitions.rule(from, to);
        if (expected == null) {
            assertNull(actual, from + " -> " + to + " must be illegal");
            return;
        }
        assertNotNull(actual, from + " -> " + to + " must be legal");
        assertEquals(expected.required(), actual.required(), "required attributes of " + from + " -> " + to);
        if (from != SQE) {
            assertEquals(expected.optional(), actual.optional(), "optional attributes of " + from + " -> " + to);
        }
    }

    // ------------------------------------------------------------------ legal and illegal transitions

    static Stream<Arguments> reachablePairs() {
        List<Arguments> l = new ArrayList<>();
        for (String mode : List.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED)) {
            for (QpState from : REACHABLE) {
                for (QpState to : QpState.values()) {
                    l.add(Arguments.of(mode, from, to));
                }
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("reachablePairs")
    @DisplayName(
            "ibv_modify_qp(3): a legal transition with its required attributes succeeds; an illegal one is EINVAL and changes nothing")
    void shouldSucceedForLegalTransitionsAndRefuseIllegalOnes(String mode, QpState from, QpState to) {
        open(mode.equals(ErrorPathSupport.THREADED));
        QueuePair qp = qpIn(from);
        Rule rule = SPEC.get(from).get(to);
        if (rule == null) {
            assertRefusedAndUnchanged(qp, new QpAttr().state(to), "illegal " + from + " -> " + to);
            // not even with every attribute the other transitions use
            QpAttr all = new QpAttr().state(to);
            for (QpAttrMask m : EnumSet.of(
                    PKEY_INDEX,
                    PORT,
                    ACCESS_FLAGS,
                    AV,
                    PATH_MTU,
                    DEST_QPN,
                    RQ_PSN,
                    MAX_DEST_RD_ATOMIC,
                    MIN_RNR_TIMER,
                    SQ_PSN,
                    TIMEOUT,
                    RETRY_CNT,
                    RNR_RETRY,
                    MAX_QP_RD_ATOMIC)) {
                set(all, m, Values.PROBE, from);
            }
            assertRefusedAndUnchanged(qp, all, "illegal " + from + " -> " + to + " with attributes");
            return;
        }
        qp.modify(attrs(from, to, rule.required(), Values.PROBE));
        QpAttr q = qp.query();
        assertEquals(to, q.state(), from + " -> " + to);
        assertEquals(to, qp.state());
        QpAttr probe = attrs(from, to, rule.required(), Values.PROBE);
        for (QpAttrMask m : rule.required()) {
            assertEquals(valueOf(probe, m), valueOf(q, m), m + " after " + from + " -> " + to);
        }
    }

    /** Legal transitions out of reachable states, with their rule. */
    static Stream<Arguments> legalTransitions() {
        List<Arguments> l = new ArrayList<>();
        for (QpState from : REACHABLE) {
            for (Map.Entry<QpState, Rule> e : SPEC.get(from).entrySet()) {
                l.add(Arguments.of(from, e.getKey()));
            }
        }
        return l.stream();
    }

    static Stream<Arguments> missingRequired() {
        return legalTransitions().flatMap(a -> {
            QpState from = (QpState) a.get()[0];
            QpState to = (QpState) a.get()[1];
            return SPEC.get(from).get(to).required().stream().map(m -> Arguments.of(from, to, m));
        });
    }

    @ParameterizedTest(name = "{0} -> {1} without {2}")
    @MethodSource("missingRequired")
    @DisplayName("ibv_modify_qp(3): omitting a required attribute is EINVAL and changes nothing")
    void shouldRefuseATransitionMissingARequiredAttribute(QpState from, QpState to, QpAttrMask missing) {
        open(false);
        QueuePair qp = qpIn(from);
        EnumSet<QpAttrMask> masks = EnumSet.copyOf(SPEC.get(from).get(to).required());
        masks.remove(missing);
        assertRefusedAndUnchanged(qp, attrs(from, to, masks, Values.PROBE), from + " -> " + to + " without " + missing);
    }

    static Stream<Arguments> unaccepted() {
        return legalTransitions().flatMap(a -> {
            QpState from = (QpState) a.get()[0];
            QpState to = (QpState) a.get()[1];
            Rule r = SPEC.get(from).get(to);
            EnumSet<QpAttrMask> extra = EnumSet.allOf(QpAttrMask.class);
            extra.remove(STATE);
            extra.removeAll(r.required());
            extra.removeAll(r.optional());
            return extra.stream().map(m -> Arguments.of(from, to, m));
        });
    }

    @ParameterizedTest(name = "{0} -> {1} with {2}")
    @MethodSource("unaccepted")
    @DisplayName(
            "IBA 11.2.5.2: an attribute the transition does not accept (QKEY, CAP, RATE_LIMIT, ...) is EINVAL and changes nothing")
    void shouldRefuseAnAttributeTheTransitionDoesNotAccept(QpState from, QpState to, QpAttrMask extra) {
        open(false);
        QueuePair qp = qpIn(from);
        QpAttr a = attrs(from, to, SPEC.get(from).get(to).required(), Values.PROBE);
        set(a, extra, Values.PROBE, from);
        assertRefusedAndUnchanged(qp, a, from + " -> " + to + " with " + extra);
    }

    static Stream<Arguments> optionalAccepted() {
        return legalTransitions().flatMap(a -> {
            QpState from = (QpState) a.get()[0];
            QpState to = (QpState) a.get()[1];
            return SPEC.get(from).get(to).optional().stream().map(m -> Arguments.of(from, to, m));
        });
    }

    @ParameterizedTest(name = "{0} -> {1} with {2}")
    @MethodSource("optionalAccepted")
    @DisplayName(
            "IBA 11.2.5.2: an optional attribute is applied; alternate-path ones are EINVAL without IBV_DEVICE_AUTO_PATH_MIG")
    void shouldApplyOptionalAttributesExceptUnsupportedPathMigration(QpState from, QpState to, QpAttrMask optional) {
        open(false);
        QueuePair qp = qpIn(from);
        QpAttr a = attrs(from, to, SPEC.get(from).get(to).required(), Values.PROBE);
        set(a, optional, Values.PROBE, from);
        if (optional == ALT_PATH || optional == PATH_MIG_STATE) {
            // ibv_modify_qp(3) NOTES: not all devices support alternate paths; simrdma devices do not
            assertRefusedAndUnchanged(qp, a, from + " -> " + to + " with " + optional);
            return;
        }
        qp.modify(a);
        QpAttr q = qp.query();
        assertEquals(to, q.state());
        assertEquals(valueOf(a, optional), valueOf(q, optional), optional + " after " + from + " -> " + to);
    }

    // ------------------------------------------------------------------ invalid values

    /** An invalid value for one attribute of a legal transition. */
    record Invalid(QpState from, QpState to, String what, Consumer<QpAttr> change) {
        @Override
        public String toString() {
            return from + "->" + to + " " + what;
        }
    }

    static Stream<Invalid> invalidValues() {
        Gid elsewhere = Gid.linkLocal(0x1234);
        return Stream.of(
                new Invalid(RESET, INIT, "pkey_index 1", a -> a.pkeyIndex(1)),
                new Invalid(RESET, INIT, "pkey_index -1", a -> a.pkeyIndex(-1)),
                new Invalid(RESET, INIT, "port 2", a -> a.port(2)),
                new Invalid(RESET, INIT, "port 0", a -> a.port(0)),
                new Invalid(RESET, INIT, "access MW_BIND", a -> a.accessFlags(EnumSet.of(AccessFlag.MW_BIND))),
                new Invalid(RESET, INIT, "access ZERO_BASED", a -> a.accessFlags(EnumSet.of(AccessFlag.ZERO_BASED))),
                new Invalid(INIT, INIT, "pkey_index 1", a -> a.pkeyIndex(1)),
                new Invalid(INIT, INIT, "port 2", a -> a.port(2)),
                new Invalid(INIT, RTR, "path_mtu 2048 above the port's 1024", a -> a.pathMtu(Mtu.MTU_2048)),
                new Invalid(INIT, RTR, "path_mtu 4096 above the port's 1024", a -> a.pathMtu(Mtu.MTU_4096)),
                new Invalid(INIT, RTR, "dest_qp_num 2^24", a -> a.destQpn(1 << 24)),
                new Invalid(INIT, RTR, "dest_qp_num -1", a -> a.destQpn(-1)),
                new Invalid(INIT, RTR, "rq_psn 2^24", a -> a.rqPsn(1 << 24)),
                new Invalid(INIT, RTR, "rq_psn -1", a -> a.rqPsn(-1)),
                new Invalid(INIT, RTR, "max_dest_rd_atomic 17 above max_qp_rd_atom 16", a -> a.maxDestRdAtomic(17)),
                new Invalid(INIT, RTR, "max_dest_rd_atomic -1", a -> a.maxDestRdAtomic(-1)),
                new Invalid(INIT, RTR, "min_rnr_timer 32", a -> a.minRnrTimer(32)),
                new Invalid(INIT, RTR, "min_rnr_timer -1", a -> a.minRnrTimer(-1)),
                new Invalid(INIT, RTR, "ah port 2", a -> a.av(new AhAttr(elsewhere, 0, 64, 0, 0, 0, 2))),
                new Invalid(INIT, RTR, "ah sgid_index 1", a -> a.av(new AhAttr(elsewhere, 1, 64, 0, 0, 0, 1))),
                new Invalid(INIT, RTR, "ah sl 16", a -> a.av(new AhAttr(elsewhere, 0, 64, 0, 0, 16, 1))),
                new Invalid(INIT, RTR, "pkey_index 1 (optional)", a -> a.pkeyIndex(1)),
                new Invalid(RTR, RTS, "sq_psn 2^24", a -> a.sqPsn(1 << 24)),
                new Invalid(RTR, RTS, "sq_psn -1", a -> a.sqPsn(-1)),
                new Invalid(RTR, RTS, "timeout 32", a -> a.timeout(32)),
                new Invalid(RTR, RTS, "timeout -1", a -> a.timeout(-1)),
                new Invalid(RTR, RTS, "retry_cnt 8", a -> a.retryCnt(8)),
                new Invalid(RTR, RTS, "retry_cnt -1", a -> a.retryCnt(-1)),
                new Invalid(RTR, RTS, "rnr_retry 8", a -> a.rnrRetry(8)),
                new Invalid(RTR, RTS, "max_rd_atomic 9 above max_qp_init_rd_atom 8", a -> a.maxRdAtomic(9)),
                new Invalid(RTR, RTS, "max_rd_atomic -1", a -> a.maxRdAtomic(-1)),
                new Invalid(RTR, RTS, "min_rnr_timer 32 (optional)", a -> a.minRnrTimer(32)),
                new Invalid(RTR, RTS, "cur_qp_state INIT in RTR", a -> a.curState(INIT)),
                new Invalid(RTS, RTS, "min_rnr_timer 32", a -> a.minRnrTimer(32)),
                new Invalid(RTS, RTS, "cur_qp_state SQD in RTS", a -> a.curState(SQD)),
                new Invalid(RTS, RTS, "access MW_BIND", a -> a.accessFlags(EnumSet.of(AccessFlag.MW_BIND))),
                new Invalid(SQD, SQD, "timeout 32", a -> a.timeout(32)),
                new Invalid(SQD, SQD, "retry_cnt 8", a -> a.retryCnt(8)),
                new Invalid(SQD, SQD, "rnr_retry 8", a -> a.rnrRetry(8)),
                new Invalid(SQD, SQD, "max_rd_atomic 9", a -> a.maxRdAtomic(9)),
                new Invalid(SQD, SQD, "max_dest_rd_atomic 17", a -> a.maxDestRdAtomic(17)),
                new Invalid(SQD, SQD, "port 2", a -> a.port(2)),
                new Invalid(SQD, SQD, "pkey_index 1", a -> a.pkeyIndex(1)),
                new Invalid(SQD, SQD, "ah sl 16", a -> a.av(new AhAttr(elsewhere, 0, 64, 0, 0, 16, 1))),
                new Invalid(SQD, RTS, "cur_qp_state RTS in SQD", a -> a.curState(RTS)),
                new Invalid(SQD, RTS, "min_rnr_timer 32", a -> a.minRnrTimer(32)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidValues")
    @DisplayName("ibv_modify_qp(3): an invalid attribute value is EINVAL and NOTHING changes (state and attributes)")
    void shouldRefuseAnInvalidValueAndChangeNothing(Invalid c) {
        open(false);
        QueuePair qp = qpIn(c.from());
        // the other attributes carry valid, different values: none of them may be applied either
        QpAttr a = attrs(c.from(), c.to(), SPEC.get(c.from()).get(c.to()).required(), Values.PROBE);
        c.change().accept(a);
        assertRefusedAndUnchanged(qp, a, c.toString());
    }

    static Stream<Invalid> limitValues() {
        return Stream.of(
                new Invalid(INIT, RTR, "path_mtu 1024 = the port's", a -> a.pathMtu(Mtu.MTU_1024)),
                new Invalid(INIT, RTR, "max_dest_rd_atomic 16 = max_qp_rd_atom", a -> a.maxDestRdAtomic(16)),
                new Invalid(INIT, RTR, "max_dest_rd_atomic 0", a -> a.maxDestRdAtomic(0)),
                new Invalid(INIT, RTR, "rq_psn 0xFFFFFF", a -> a.rqPsn(0xFFFFFF)),
                new Invalid(INIT, RTR, "dest_qp_num 0xFFFFFF", a -> a.destQpn(0xFFFFFF)),
                new Invalid(INIT, RTR, "min_rnr_timer 0 (655.36 ms)", a -> a.minRnrTimer(0)),
                new Invalid(RTR, RTS, "timeout 31", a -> a.timeout(31)),
                new Invalid(RTR, RTS, "timeout 0 (infinite)", a -> a.timeout(0)),
                new Invalid(RTR, RTS, "retry_cnt 0", a -> a.retryCnt(0)),
                new Invalid(RTR, RTS, "rnr_retry 7 (infinite)", a -> a.rnrRetry(7)),
                new Invalid(RTR, RTS, "max_rd_atomic 8 = max_qp_init_rd_atom", a -> a.maxRdAtomic(8)),
                new Invalid(RTR, RTS, "sq_psn 0xFFFFFF", a -> a.sqPsn(0xFFFFFF)),
                new Invalid(RTR, RTS, "cur_qp_state RTR", a -> a.curState(RTR)),
                new Invalid(RTS, RTS, "cur_qp_state RTS", a -> a.curState(RTS)),
                new Invalid(SQD, RTS, "cur_qp_state SQD", a -> a.curState(SQD)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("limitValues")
    @DisplayName("ibv_modify_qp(3): values at the limits (and a matching cur_qp_state) are accepted")
    void shouldAcceptValuesAtTheLimits(Invalid c) {
        open(false);
        QueuePair qp = qpIn(c.from());
        QpAttr a = attrs(c.from(), c.to(), SPEC.get(c.from()).get(c.to()).required(), Values.PROBE);
        c.change().accept(a);
        qp.modify(a);
        assertEquals(c.to(), qp.query().state());
    }

    // ------------------------------------------------------------------ other rules

    @Test
    @DisplayName(
            "ibv_modify_qp(3): without IBV_QP_STATE the QP stays in its state: RTS -> RTS is legal, RTR -> RTR is not")
    void shouldTreatAModifyWithoutStateAsATransitionToTheCurrentState() {
        open(false);
        QueuePair rts = qpIn(RTS);
        rts.modify(new QpAttr().minRnrTimer(20));
        assertEquals(20, rts.query().minRnrTimer());
        assertEquals(RTS, rts.state());

        QueuePair rtr = qpIn(RTR);
        assertRefusedAndUnchanged(rtr, new QpAttr().minRnrTimer(20), "RTR -> RTR");
        QueuePair reset = qpIn(RESET);
        reset.modify(new QpAttr()); // RESET -> RESET with nothing set
        assertEquals(RESET, reset.state());
    }

    @Test
    @DisplayName(
            "ibv_modify_qp(3): QKEY, ALT_PATH, CAP and RATE_LIMIT are refused for RC at every step of the connection")
    void shouldRefuseQkeyAltPathCapAndRateLimitForRc() {
        open(false);
        for (QpAttrMask m : List.of(QpAttrMask.QKEY, ALT_PATH, QpAttrMask.CAP, QpAttrMask.RATE_LIMIT)) {
            QueuePair qp = newQp();
            QpState cur = RESET;
            for (QpState next : List.of(INIT, RTR, RTS, RTS)) {
                QpAttr a = attrs(cur, next, SPEC.get(cur).get(next).required(), Values.SETUP);
                set(a, m, Values.PROBE, cur);
                assertRefusedAndUnchanged(qp, a, cur + " -> " + next + " with " + m);
                qp.modify(attrs(cur, next, SPEC.get(cur).get(next).required(), Values.SETUP));
                cur = next;
            }
        }
    }

    @Test
    @DisplayName("ibv_modify_qp(3): a failed modify of a connected QP leaves it working (state, PSNs, path untouched)")
    void shouldKeepAConnectedQpWorkingAfterAFailedModify() {
        try (RcPair p = ErrorPathSupport.pair(ErrorPathSupport.DET).connect()) {
            Snapshot before = Snapshot.of(p.a.qp);
            VerbsException e = assertThrows(
                    VerbsException.class,
                    () -> p.a.qp.modify(new QpAttr()
                            .state(RTS)
                            .minRnrTimer(5)
                            .accessFlags(EnumSet.of(AccessFlag.REMOTE_READ))
                            .timeout(3)));
            assertEquals(Errno.EINVAL, e.errno()); // TIMEOUT is not accepted RTS -> RTS
            assertEquals(before, Snapshot.of(p.a.qp));
            p.b.qp.postRecv(new RecvWr().wrId(1).sge(p.b.mr, 0, 64));
            p.a.qp.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(p.a.mr, 0, 64)
                    .flag(SendFlag.SIGNALED));
            ErrorPathSupport.expect(p.a, 2, WcStatus.SUCCESS);
            ErrorPathSupport.expect(p.b, 1, WcStatus.SUCCESS);
        }
    }
}
