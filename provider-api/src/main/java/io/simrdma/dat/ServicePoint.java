package io.simrdma.dat;

/**
 * What a Public and a Reserved Service Point share ({@code DAT_SP_HANDLE}, the union of
 * {@code DAT_PSP_HANDLE} and {@code DAT_RSP_HANDLE}): the connection qualifier they listen on. A
 * {@link ConnectionRequestEvent} names the service point a request arrived on.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface ServicePoint extends FreeableHandle {

    /** The connection qualifier this service point listens on. */
    long connQual();
}
