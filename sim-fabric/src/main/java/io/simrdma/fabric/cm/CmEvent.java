package io.simrdma.fabric.cm;

import io.simrdma.fabric.VerbsException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A communication event (struct rdma_cm_event). Events returned by
 * {@link CmEventChannel#getEvent} must be acknowledged with {@link #ack()} (rdma_ack_cm_event(3));
 * an id with unacknowledged events cannot be destroyed.
 *
 * <p>Thread safety: immutable but for the acknowledgement, which is atomic.
 */
public final class CmEvent {

    private final CmEventType type;
    private final CmId id;
    private final CmId listenId;
    private final int status;
    private final ConnParam param;
    private final long timeNanos;
    private final String detail;
    private final UdParam ud;
    private final AtomicBoolean acked = new AtomicBoolean();
    private volatile boolean retrieved;

    CmEvent(CmEventType type, CmId id, CmId listenId, int status, ConnParam param, long timeNanos) {
        this(type, id, listenId, status, param, timeNanos, null);
    }

    CmEvent(CmEventType type, CmId id, CmId listenId, int status, ConnParam param, long timeNanos, String detail) {
        this(type, id, listenId, status, param, timeNanos, detail, null);
    }

    CmEvent(
            CmEventType type,
            CmId id,
            CmId listenId,
            int status,
            ConnParam param,
            long timeNanos,
            String detail,
            UdParam ud) {
        this.ud = ud;
        this.detail = detail;
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.param = param;
        this.timeNanos = timeNanos;
    }

    /**
     * The UD event data (rdma_get_cm_event(3), "UD EVENT DATA") of an RDMA_PS_UDP id's
     * ESTABLISHED or CONNECT_REQUEST, or null for other events and port spaces.
     */
    public UdParam ud() {
        return ud;
    }

    public CmEventType type() {
        return type;
    }

    /** The id the event is about; for CONNECT_REQUEST, the new id of the request. */
    public CmId id() {
        return id;
    }

    /** For CONNECT_REQUEST, the listening id; otherwise null. */
    public CmId listenId() {
        return listenId;
    }

    /**
     * 0 on success; for REJECTED the IB CM reject reason ({@link RejectReason#code()}); for other
     * failures a negative errno (-110 ETIMEDOUT for an unanswered request).
     */
    public int status() {
        return status;
    }

    /** The peer's reject reason, for REJECTED; null otherwise. */
    public RejectReason rejectReason() {
        return type == CmEventType.REJECTED ? RejectReason.of(status) : null;
    }

    /**
     * Connection data: private data and negotiated resources for CONNECT_REQUEST,
     * CONNECT_RESPONSE and ESTABLISHED; the reject's private data for REJECTED; never null.
     */
    public ConnParam param() {
        return param;
    }

    /** The event's private data (a copy; zero-padded to the IB CM field size, as rdma_get_cm_event(3) says). */
    public byte[] privateData() {
        return param.privateData();
    }

    /**
     * Why a connection attempt failed, in words, when the transport said more than
     * {@link #status()} can (for UNREACHABLE after a TCP link's handshake was refused: which
     * check failed); null otherwise.
     */
    public String detail() {
        return detail;
    }

    /** When the event was generated, on the fabric's clock. */
    public long timeNanos() {
        return timeNanos;
    }

    /**
     * Acknowledges the event (rdma_ack_cm_event(3)). Acknowledging twice fails.
     *
     * @throws VerbsException EINVAL if already acknowledged or never returned by a channel
     */
    public void ack() {
        if (!retrieved) {
            throw new VerbsException(io.simrdma.fabric.Errno.EINVAL, "event was not returned by rdma_get_cm_event");
        }
        if (!acked.compareAndSet(false, true)) {
            throw new VerbsException(io.simrdma.fabric.Errno.EINVAL, "event already acknowledged");
        }
        id.events.acked();
    }

    boolean isAcked() {
        return acked.get();
    }

    /** Marks the event handed to the application; it now counts as unacknowledged on its id. */
    void retrieved() {
        retrieved = true;
        id.events.retrieved();
    }

    /** A synchronous id consumes its own events: they never count as unacknowledged. */
    void consumedSynchronously() {
        retrieved = true;
        acked.set(true);
    }

    @Override
    public String toString() {
        return "CmEvent[" + type.text() + ", id=" + id + (status != 0 ? ", status=" + status : "")
                + (detail != null ? ", " + detail : "") + "]";
    }
}
