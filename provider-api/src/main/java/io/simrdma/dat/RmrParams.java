package io.simrdma.dat;

import java.util.Optional;

/**
 * The parameters of a Remote Memory Region ({@code DAT_RMR_PARAM}), as {@link RemoteMemoryRegion#query()}
 * returns them. The LMR triplet, privileges and rmr_context are not defined for an unbound RMR, so
 * they are grouped in an optional {@link RmrBinding}.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param pz the PZ the RMR was created in
 * @param binding the current binding; empty while unbound
 */
public record RmrParams(InterfaceAdapter ia, ProtectionZone pz, Optional<RmrBinding> binding) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public RmrParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(pz, "pz");
        Checks.notNull(binding, "binding");
    }
}
