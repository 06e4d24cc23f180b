package io.simrdma.fabric.internal.ucud;

import static io.simrdma.fabric.QpAttrMask.ACCESS_FLAGS;
import static io.simrdma.fabric.QpAttrMask.ALT_PATH;
import static io.simrdma.fabric.QpAttrMask.AV;
import static io.simrdma.fabric.QpAttrMask.CUR_STATE;
import static io.simrdma.fabric.QpAttrMask.DEST_QPN;
import static io.simrdma.fabric.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.simrdma.fabric.QpAttrMask.PATH_MIG_STATE;
import static io.simrdma.fabric.QpAttrMask.PATH_MTU;
import static io.simrdma.fabric.QpAttrMask.PKEY_INDEX;
import static io.simrdma.fabric.QpAttrMask.PORT;
import static io.simrdma.fabric.QpAttrMask.QKEY;
import static io.simrdma.fabric.QpAttrMask.RQ_PSN;
import static io.simrdma.fabric.QpAttrMask.SQ_PSN;
import static io.simrdma.fabric.QpAttrMask.STATE;
import static io.simrdma.fabric.QpState.ERR;
import static io.simrdma.fabric.QpState.INIT;
import static io.simrdma.fabric.QpState.RESET;
import static io.simrdma.fabric.QpState.RTR;
import static io.simrdma.fabric.QpState.RTS;
import static io.simrdma.fabric.QpState.SQD;
import static io.simrdma.fabric.QpState.SQE;

import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.QpType;
import io.simrdma.fabric.VerbsException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The UC and UD columns of IBA 11.2.5.2 table 91 ("QP state transition properties") and
 * ibv_modify_qp(3): per legal transition the attributes required and those accepted. UC needs no
 * retry count, timeout, RNR retry, RNR timer or RDMA READ depths (nothing is acknowledged or
 * read); UD has no remote QP at all: INIT takes the Q_Key, RTR needs nothing, RTS the SQ PSN.
 */
public final class UnreliableTransitions {

    /** Required and accepted attributes of one transition (STATE itself excluded). */
    record Rule(Set<QpAttrMask> required, Set<QpAttrMask> optional) {}

    private static final Map<QpType, Map<QpState, Map<QpState, Rule>>> TABLES = new EnumMap<>(QpType.class);

    static {
        Map<QpState, Map<QpState, Rule>> uc = table();
        rule(uc, RESET, INIT, EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), none());
        rule(uc, INIT, INIT, none(), EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        rule(uc, INIT, RTR, EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN), EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
        rule(uc, RTR, RTS, EnumSet.of(SQ_PSN), EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
        rule(uc, RTS, RTS, none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
        rule(uc, RTS, SQD, none(), EnumSet.of(EN_SQD_ASYNC_NOTIFY));
        rule(uc, SQD, RTS, none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
        rule(uc, SQD, SQD, none(), EnumSet.of(PKEY_INDEX, AV, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
        rule(uc, SQE, RTS, none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS));
        TABLES.put(QpType.UC, uc);

        Map<QpState, Map<QpState, Rule>> ud = table();
        rule(ud, RESET, INIT, EnumSet.of(PKEY_INDEX, PORT, QKEY), none());
        rule(ud, INIT, INIT, none(), EnumSet.of(PKEY_INDEX, PORT, QKEY));
        rule(ud, INIT, RTR, none(), EnumSet.of(PKEY_INDEX, QKEY));
        rule(ud, RTR, RTS, EnumSet.of(SQ_PSN), EnumSet.of(CUR_STATE, QKEY));
        rule(ud, RTS, RTS, none(), EnumSet.of(CUR_STATE, QKEY));
        rule(ud, RTS, SQD, none(), EnumSet.of(EN_SQD_ASYNC_NOTIFY));
        rule(ud, SQD, RTS, none(), EnumSet.of(CUR_STATE, QKEY));
        rule(ud, SQD, SQD, none(), EnumSet.of(PKEY_INDEX, QKEY));
        rule(ud, SQE, RTS, none(), EnumSet.of(CUR_STATE, QKEY));
        TABLES.put(QpType.UD, ud);
    }

    private UnreliableTransitions() {}

    private static EnumSet<QpAttrMask> none() {
        return EnumSet.noneOf(QpAttrMask.class);
    }

    private static Map<QpState, Map<QpState, Rule>> table() {
        Map<QpState, Map<QpState, Rule>> t = new EnumMap<>(QpState.class);
        for (QpState s : QpState.values()) {
            t.put(s, new EnumMap<>(QpState.class));
            // Any state may move to RESET or ERR with no other attribute.
            t.get(s).put(RESET, new Rule(none(), none()));
            t.get(s).put(ERR, new Rule(none(), none()));
        }
        return t;
    }

    private static void rule(
            Map<QpState, Map<QpState, Rule>> t,
            QpState from,
            QpState to,
            Set<QpAttrMask> required,
            Set<QpAttrMask> optional) {
        t.get(from).put(to, new Rule(required, optional));
    }

    /** The attributes {@code type} requires for {@code from -> to}, or null if the transition is illegal. */
    public static Set<QpAttrMask> required(QpType type, QpState from, QpState to) {
        Rule r = TABLES.get(type).get(from).get(to);
        return r == null ? null : EnumSet.copyOf(r.required().isEmpty() ? none() : r.required());
    }

    /**
     * Checks a modify's mask: legal transition, required attributes present, nothing the
     * transition does not accept.
     *
     * @throws VerbsException EINVAL naming what is wrong
     */
    static void check(QpType type, QpState from, QpState to, Set<QpAttrMask> mask) {
        Rule r = TABLES.get(type).get(from).get(to);
        if (r == null) {
            throw VerbsException.invalid(
                    "illegal " + type + " QP state transition " + from + " -> " + to + " (ibv_modify_qp(3))");
        }
        EnumSet<QpAttrMask> missing = r.required().isEmpty() ? none() : EnumSet.copyOf(r.required());
        missing.removeAll(mask);
        if (!missing.isEmpty()) {
            throw VerbsException.invalid(
                    type + " transition " + from + " -> " + to + " requires " + missing + " (ibv_modify_qp(3))");
        }
        EnumSet<QpAttrMask> extra = mask.isEmpty() ? none() : EnumSet.copyOf(mask);
        extra.remove(STATE);
        extra.removeAll(r.required());
        extra.removeAll(r.optional());
        if (!extra.isEmpty()) {
            throw VerbsException.invalid(type + " transition " + from + " -> " + to + " does not accept " + extra
                    + " (IBA 11.2.5.2, table 91)");
        }
    }
}
