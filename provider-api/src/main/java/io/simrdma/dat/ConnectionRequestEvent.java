package io.simrdma.dat;

import java.net.SocketAddress;
import java.util.Optional;

/**
 * A connection request arrived on a service point ({@link EventNumber#CONNECTION_REQUEST_EVENT},
 * {@code DAT_CR_ARRIVAL_EVENT_DATA}). The consumer must accept, reject or hand off {@link #cr()}.
 *
 * <p>Thread safety: immutable.
 *
 * @param evd the EVD (the service point's)
 * @param servicePoint the PSP or RSP the request arrived on; the dat.h comment says it is
 *        {@code DAT_HANDLE_NULL} for an RSP because an RSP is destroyed when it generates its event
 *        (which conflicts with dat_rsp_free; a provider may give it), so it is optional
 * @param localIaAddress the address of the IA the request arrived on
 * @param connQual the connection qualifier the service point received it on
 * @param cr the Connection Request
 */
public record ConnectionRequestEvent(
        EventDispatcher evd,
        Optional<ServicePoint> servicePoint,
        SocketAddress localIaAddress,
        long connQual,
        ConnectionRequest cr)
        implements DatEvent {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public ConnectionRequestEvent {
        Checks.notNull(evd, "evd");
        Checks.notNull(servicePoint, "servicePoint");
        Checks.notNull(localIaAddress, "localIaAddress");
        Checks.notNull(cr, "cr");
    }

    /** {@link EventNumber#CONNECTION_REQUEST_EVENT}. */
    @Override
    public EventNumber eventNumber() {
        return EventNumber.CONNECTION_REQUEST_EVENT;
    }
}
