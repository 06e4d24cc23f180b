package io.simrdma.dat;

/**
 * The transport service of an Endpoint ({@code DAT_SERVICE_TYPE} in dat.h). DAT 1.2 defines only
 * reliable connections.
 *
 * <p>Thread safety: immutable.
 */
public enum ServiceType {
    /** {@code DAT_SERVICE_TYPE_RC} (0): reliable connection. */
    RC;

    /** The header value (the declaration position). */
    public int value() {
        return ordinal();
    }
}
