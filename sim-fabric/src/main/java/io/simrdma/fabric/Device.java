package io.simrdma.fabric;

import io.simrdma.fabric.sched.EngineExecutor;
import io.simrdma.fabric.wire.Gid;
import java.util.concurrent.TimeUnit;

/**
 * A simulated HCA with one port (an opened ibv_context): creates protection domains,
 * completion queues and channels, reports asynchronous events, and runs the RC transport of
 * its queue pairs on its own {@link EngineExecutor}.
 *
 * <p>Thread safety: thread-safe. Control operations (create, modify, destroy) run on the
 * device's executor; posts and polls run on the caller's thread.
 */
public interface Device extends AutoCloseable {

    String name();

    Fabric fabric();

    /** Node GUID. */
    long guid();

    /** The port's GID: the address other devices use to reach this one. */
    Gid gid();

    /** The device's attributes and limits (ibv_query_device(3)). */
    DeviceAttributes query();

    /** How this device behaves where real devices differ ({@link DeviceConfig#profile}). */
    DeviceProfile profile();

    /**
     * The port's attributes (ibv_query_port(3)).
     *
     * @throws VerbsException EINVAL for a port other than 1
     */
    PortAttributes queryPort(int port);

    /** The executor running this device's engine work. */
    EngineExecutor executor();

    /** Device-wide counters (sums over its queue pairs, plus packets no QP received). */
    Counters counters();

    /** Allocates a protection domain (ibv_alloc_pd(3)). ENOMEM beyond max_pd. */
    ProtectionDomain allocPd();

    /** Creates a completion event channel (ibv_create_comp_channel(3)). */
    CompletionChannel createCompletionChannel();

    /**
     * The device's completion vectors (struct ibv_context's num_comp_vectors): a CQ signals its
     * completion events through one of them, numbered 0 to {@code numCompVectors() - 1}
     * ({@link #createCq(int, CompletionChannel, Object, int)}). Also in {@link #query()}.
     */
    int numCompVectors();

    /** Creates a CQ of {@code cqe} entries without a channel, on completion vector 0 (ibv_create_cq(3)). */
    CompletionQueue createCq(int cqe);

    /**
     * Creates a completion queue (ibv_create_cq(3)) of exactly {@code cqe} entries, on completion
     * vector 0.
     *
     * @param channel where notifications go when requested (may be null)
     * @param context application object kept with the CQ (cq_context)
     * @throws VerbsException EINVAL if {@code cqe} is not in 1..max_cqe; ENOMEM beyond max_cq
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, Object context);

    /**
     * Creates a completion queue (ibv_create_cq(3)) of exactly {@code cqe} entries that signals
     * its completion events through completion vector {@code compVector} ("it must be at least
     * zero and less than context->num_comp_vectors", ibv_create_cq(3)). A vector selects which
     * interrupt, and so which CPU, handles the CQ's events on a real device; here every vector is
     * served by the device's executor, and {@link CompletionQueue#compVector()} reports it.
     *
     * @throws VerbsException EINVAL if {@code compVector} is not in 0..{@link #numCompVectors()}-1
     *                        or {@code cqe} is not in 1..max_cqe; ENOMEM beyond max_cq
     */
    CompletionQueue createCq(int cqe, CompletionChannel channel, Object context, int compVector);

    /**
     * Waits for the next asynchronous event (ibv_get_async_event(3)) for at most {@code timeout}.
     *
     * @return the event, or null if none arrived in time
     */
    AsyncEvent getAsyncEvent(long timeout, TimeUnit unit);

    /** The next asynchronous event, or null if none is queued; never blocks. */
    AsyncEvent pollAsyncEvent();

    /**
     * Acknowledges an event returned by {@link #getAsyncEvent} (ibv_ack_async_event(3)). An
     * object with retrieved, unacknowledged events cannot be destroyed.
     */
    void ackAsyncEvent(AsyncEvent e);

    /** Current logical state of the port. */
    PortState portState();

    /**
     * Takes the port down or brings it up (a cable pulled or plugged back): a down port drops
     * every packet in and out; PORT_ERR or PORT_ACTIVE is raised.
     */
    void setPortActive(boolean active);

    /**
     * Closes the device (ibv_close_device(3)).
     *
     * @throws VerbsException EBUSY while PDs, CQs or completion channels of it exist
     */
    @Override
    void close();

    /**
     * Runs {@code listener} on the closing thread once {@link #close()} has closed the device (not
     * when the fabric closes it): how the connection manager learns that a device was removed
     * (RDMA_CM_EVENT_DEVICE_REMOVAL, rdma_get_cm_event(3)). Listeners must not block.
     */
    void addCloseListener(Runnable listener);

    /** True once closed. */
    boolean isClosed();

    /**
     * Installs the handler for QP1 management datagrams (one per device: the connection manager
     * claims it).
     *
     * @throws IllegalStateException if another handler is installed
     */
    void setMadHandler(MadHandler handler);

    /**
     * Sends a 256-byte management datagram from QP1 to QP {@code destQp} of the port owning
     * {@code destination}, as a UD SEND Only with a DETH (IBA 13.4), over the same links as data,
     * so it can be lost, delayed, duplicated and traced. May be called from any thread; the bytes
     * are copied.
     */
    void sendMad(Gid destination, int destQp, byte[] mad);

    /**
     * Observes every state change of this device's queue pairs (by modify calls or by the engine
     * on an error), on the engine thread: how the connection manager learns that a connected QP
     * failed. Listeners must not block.
     */
    void addQpStateListener(QpStateListener listener);

    /** Removes a listener added with {@link #addQpStateListener}. */
    void removeQpStateListener(QpStateListener listener);

    /** Removes a listener added with {@link #addAsyncEventListener}. */
    void removeAsyncEventListener(java.util.function.Consumer<AsyncEvent> listener);

    /**
     * Observes every asynchronous event this device raises, on the engine thread, before it is
     * queued for {@link #getAsyncEvent}: how the connection manager learns of COMM_EST on its
     * queue pairs. Listeners must not block.
     */
    void addAsyncEventListener(java.util.function.Consumer<AsyncEvent> listener);

    /** Queue pair number of the General Services Interface, where management datagrams arrive (IBA 13.4.1). */
    int GSI_QPN = 1;
    /** The well-known Q_Key of QP1 (IBA 13.4.6.2). */
    int GSI_QKEY = 0x80010000;
    /** Size of a management datagram (IBA 13.4.2). */
    int MAD_SIZE = 256;

    /**
     * Receives management datagrams (MADs) arriving on QP1, the way the kernel's MAD layer hands
     * them to the IB CM. Called on the device's executor with the packet's source GID, source QP
     * and the 256 MAD bytes (a fresh array the handler owns).
     */
    interface MadHandler {
        void onMad(Gid source, int sourceQp, byte[] mad);

        /**
         * The transport toward {@code destination} refused this device for a reason that retrying
         * will not cure (a TCP link's handshake was refused: wrong credentials, another fabric,
         * another protocol version), the way an ICMP "administratively prohibited" reaches a host.
         * Called on the device's executor; {@code cause} is a sentence a person can act on. The
         * default does nothing.
         */
        default void onUnreachable(Gid destination, String cause) {}
    }

    /** Observes queue pair state changes of a device, on its engine thread. */
    interface QpStateListener {
        void onStateChange(QueuePair qp, QpState from, QpState to);
    }
}
