package io.simrdma.fabric.internal.rc;

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

import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.VerbsException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The RC queue pair state machine of ibv_modify_qp(3) and IBA 11.2.5.2 (table 91, "QP state
 * transition properties"), as a table: for each legal (from, to) transition, the attributes it
 * requires and those it also accepts. Any other transition, a missing required attribute or
 * an attribute outside both sets makes the whole modify fail with EINVAL and change nothing.
 */
public final class QpTransitions {

    /** Required and optional attributes of one transition (STATE itself excluded). */
    public record Rule(Set<QpAttrMask> required, Set<QpAttrMask> optional) {}

    private static final Map<QpState, Map<QpState, Rule>> RC = new EnumMap<>(QpState.class);

    static {
        for (QpState s : QpState.values()) {
            RC.put(s, new EnumMap<>(QpState.class));
            // Any state may move to RESET or ERR with no other attribute.
            rule(s, RESET, EnumSet.noneOf(QpAttrMask.class), EnumSet.noneOf(QpAttrMask.class));
            rule(s, ERR, EnumSet.noneOf(QpAttrMask.class), EnumSet.noneOf(QpAttrMask.class));
        }
        rule(RESET, INIT, EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), EnumSet.noneOf(QpAttrMask.class));
        rule(INIT, INIT, EnumSet.noneOf(QpAttrMask.class), EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        rule(
                INIT,
                RTR,
                EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
        rule(
                RTR,
                RTS,
                EnumSet.of(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC),
                EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
        rule(
                RTS,
                RTS,
                EnumSet.noneOf(QpAttrMask.class),
                EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
        rule(RTS, SQD, EnumSet.noneOf(QpAttrMask.class), EnumSet.of(EN_SQD_ASYNC_NOTIFY));
        rule(
                SQD,
                RTS,
                EnumSet.noneOf(QpAttrMask.class),
                EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
        rule(
                SQD,
                SQD,
                EnumSet.noneOf(QpAttrMask.class),
                EnumSet.of(
                        PKEY_INDEX,
                        PORT,
                        AV,
                        ACCESS_FLAGS,
                        ALT_PATH,
                        TIMEOUT,
                        RETRY_CNT,
                        RNR_RETRY,
                        MAX_QP_RD_ATOMIC,
                        MAX_DEST_RD_ATOMIC,
                        MIN_RNR_TIMER,
                        PATH_MIG_STATE));
        rule(SQE, RTS, EnumSet.noneOf(QpAttrMask.class), EnumSet.of(CUR_STATE, ACCESS_FLAGS));
    }

    private QpTransitions() {}

    private static void rule(QpState from, QpState to, Set<QpAttrMask> required, Set<QpAttrMask> optional) {
        RC.get(from).put(to, new Rule(required, optional));
    }

    /** The rule of a transition, or null if the transition is illegal. */
    public static Rule rule(QpState from, QpState to) {
        return RC.get(from).get(to);
    }

    /**
     * Checks a modify's mask against the table: legal transition, required attributes present,
     * no attribute the transition does not accept.
     *
     * @throws VerbsException EINVAL naming what is wrong
     */
    static void check(QpState from, QpState to, Set<QpAttrMask> mask) {
        Rule r = rule(from, to);
        if (r == null) {
            throw VerbsException.invalid("illegal QP state transition " + from + " -> " + to + " (ibv_modify_qp(3))");
        }
        EnumSet<QpAttrMask> missing = EnumSet.copyOf(r.required());
        missing.removeAll(mask);
        if (!missing.isEmpty()) {
            throw VerbsException.invalid(
                    "transition " + from + " -> " + to + " requires " + missing + " (ibv_modify_qp(3))");
        }
        EnumSet<QpAttrMask> extra = mask.isEmpty() ? EnumSet.noneOf(QpAttrMask.class) : EnumSet.copyOf(mask);
        extra.remove(STATE);
        extra.removeAll(r.required());
        extra.removeAll(r.optional());
        if (!extra.isEmpty()) {
            throw VerbsException.invalid(
                    "transition " + from + " -> " + to + " does not accept " + extra + " (IBA 11.2.5.2, table 91)");
        }
    }
}
