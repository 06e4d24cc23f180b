package io.simrdma.dat;

/**
 * The parameters of a Public Service Point ({@code DAT_PSP_PARAM}), as {@link PublicServicePoint#query()}
 * returns them.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param connQual the connection qualifier it listens on
 * @param evd the EVD connection requests go to
 * @param flag who creates EPs for requests
 */
public record PspParams(InterfaceAdapter ia, long connQual, EventDispatcher evd, PspFlag flag) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public PspParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(evd, "evd");
        Checks.notNull(flag, "flag");
    }
}
