package io.simrdma.dat;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The parameters of an Event Dispatcher ({@code DAT_EVD_PARAM}), as {@link EventDispatcher#query()}
 * returns them.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param qlen the actual queue length (at least the requested minimum)
 * @param state one value of each sub-state of {@link EvdState}: exactly one of
 *        {@code ENABLED}/{@code DISABLED}, exactly one of {@code WAITABLE}/{@code UNWAITABLE}, and
 *        at most one {@code CONFIG_*} value
 * @param cno the CNO the EVD notifies; empty if none
 * @param flags the event streams the EVD accepts
 */
public record EvdParams(
        InterfaceAdapter ia,
        int qlen,
        Set<EvdState> state,
        Optional<ConsumerNotificationObject> cno,
        Set<EvdFlag> flags) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, a negative queue
     *         length, or a state that is not one value per sub-state
     */
    public EvdParams {
        Checks.notNull(ia, "ia");
        Checks.nonNegative(qlen, "qlen");
        state = Checks.enumSet(state, EvdState.class, "state");
        for (EvdState.SubState sub : EvdState.SubState.values()) {
            int n = 0;
            for (EvdState s : state) {
                if (s.subState() == sub) {
                    n++;
                }
            }
            boolean ok = sub == EvdState.SubState.CONFIGURATION ? n <= 1 : n == 1;
            if (!ok) {
                throw DatException.invalidParameter("EVD state " + state + " holds " + n + " values of " + sub);
            }
        }
        Checks.notNull(cno, "cno");
        flags = Checks.enumSet(flags, EvdFlag.class, "flags");
    }

    /** Whether the state holds {@link EvdState#ENABLED}. */
    public boolean isEnabled() {
        return state.contains(EvdState.ENABLED);
    }

    /** Whether the state holds {@link EvdState#WAITABLE}. */
    public boolean isWaitable() {
        return state.contains(EvdState.WAITABLE);
    }

    /** The C {@code DAT_EVD_STATE} word: the OR of the state values. */
    public int stateBits() {
        int bits = 0;
        for (EvdState s : state) {
            bits |= s.value();
        }
        return bits;
    }

    /** A state set of one value per sub-state; {@code config} may be null. */
    public static Set<EvdState> stateOf(boolean enabled, boolean waitable, EvdState config) {
        EnumSet<EvdState> s = EnumSet.of(
                enabled ? EvdState.ENABLED : EvdState.DISABLED, waitable ? EvdState.WAITABLE : EvdState.UNWAITABLE);
        if (config != null) {
            s.add(config);
        }
        return s;
    }
}
