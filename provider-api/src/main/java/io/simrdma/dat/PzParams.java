package io.simrdma.dat;

/**
 * The parameters of a Protection Zone ({@code DAT_PZ_PARAM}), as {@link ProtectionZone#query()}
 * returns them.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA the PZ belongs to
 */
public record PzParams(InterfaceAdapter ia) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code ia} is null
     */
    public PzParams {
        Checks.notNull(ia, "ia");
    }
}
