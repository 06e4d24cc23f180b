package io.simrdma.dat;

import java.util.OptionalInt;
import java.util.Set;

/**
 * The parameters of a Local Memory Region ({@code DAT_LMR_PARAM}), as {@link LocalMemoryRegion#query()}
 * returns them.
 *
 * <p>Thread safety: immutable (the buffer in {@code region} is the consumer's).
 *
 * @param ia the IA
 * @param memType the memory type ({@code region.memType()})
 * @param region the registered memory
 * @param length the length given at creation, in bytes
 * @param pz the PZ
 * @param privileges the memory privileges
 * @param lmrContext the {@code lmr_context}
 * @param rmrContext the {@code rmr_context}; empty if the LMR has no remote privilege
 * @param registeredSize the registered size in bytes
 * @param registeredAddress the registered address
 */
public record LmrParams(
        InterfaceAdapter ia,
        MemoryType memType,
        RegionDescription region,
        long length,
        ProtectionZone pz,
        Set<MemoryPrivilege> privileges,
        int lmrContext,
        OptionalInt rmrContext,
        long registeredSize,
        long registeredAddress) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, a memory type other
     *         than the region's, or a negative length or size
     */
    public LmrParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(memType, "memType");
        Checks.notNull(region, "region");
        if (memType != region.memType()) {
            throw DatException.invalidParameter(
                    "memType " + memType + " differs from the region's " + region.memType());
        }
        Checks.nonNegative(length, "length");
        Checks.notNull(pz, "pz");
        privileges = Checks.enumSet(privileges, MemoryPrivilege.class, "privileges");
        Checks.notNull(rmrContext, "rmrContext");
        Checks.nonNegative(registeredSize, "registeredSize");
    }
}
