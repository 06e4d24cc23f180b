package io.simrdma.fabric.cm;

import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;

/**
 * A synchronous connection-manager call ended with an event other than the one it waited for
 * (a REJECTED connect, an UNREACHABLE peer): the errno librdmacm would set, and the event, so
 * that the caller can read a reject's reason and private data.
 *
 * <p>Thread safety: immutable once thrown.
 */
public final class CmException extends VerbsException {

    private static final long serialVersionUID = 1L;

    private final transient CmEvent event;

    CmException(Errno errno, String message, CmEvent event) {
        super(errno, message);
        this.event = event;
    }

    /** The event that ended the call. */
    public CmEvent event() {
        return event;
    }
}
