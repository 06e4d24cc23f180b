package io.simrdma.dat;

/**
 * The parameters of a Reserved Service Point ({@code DAT_RSP_PARAM}), as
 * {@link ReservedServicePoint#query()} returns them.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param connQual the connection qualifier it listens on
 * @param evd the EVD the connection request goes to
 * @param ep the consumer's EP reserved for the request
 */
public record RspParams(InterfaceAdapter ia, long connQual, EventDispatcher evd, Endpoint ep) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public RspParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(evd, "evd");
        Checks.notNull(ep, "ep");
    }
}
