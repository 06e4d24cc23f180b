package io.simrdma.dat;

import java.util.Set;

/**
 * What a bound RMR is bound to: the part of {@code DAT_RMR_PARAM} that is defined only while the RMR
 * is bound (dat_rmr_query).
 *
 * <p>Thread safety: immutable.
 *
 * @param lmrTriplet the LMR region the RMR is bound to
 * @param privileges the remote privileges of the binding
 * @param rmrContext the {@code rmr_context} of the binding
 */
public record RmrBinding(LmrTriplet lmrTriplet, Set<MemoryPrivilege> privileges, int rmrContext) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public RmrBinding {
        Checks.notNull(lmrTriplet, "lmrTriplet");
        privileges = Checks.enumSet(privileges, MemoryPrivilege.class, "privileges");
    }
}
