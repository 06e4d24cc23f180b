package io.simrdma.fabric;

/**
 * Watches how an application uses a fabric: the life of its verbs objects, and the hand-over of
 * registered memory between the application and a device that work requests make. It is for
 * test tools (simrdma-junit's leak checks and buffer-ownership checker), which need to see what
 * a real HCA does not report: which bytes a posted work request lends the device, and when the
 * device gives them back.
 *
 * <p>Installed once, when the fabric is built ({@link Fabric.Builder#observer}); a fabric without
 * an observer pays one null check per post, per retired work request and per packet whose bytes
 * the device writes into memory, and allocates nothing for it ({@code HotPathAllocationTest}).
 *
 * <h2>The hand-over of memory (ibv_post_send(3), ibv_post_recv(3))</h2>
 * <pre>
 *   application                          device
 *   sendPosted / recvPosted   ------&gt;    owns the SGEs' bytes: may read (send, RDMA WRITE source)
 *                                         or write (receive, RDMA READ target, atomic result)
 *                                         them at any time from now on
 *                             &lt;------    deviceWrote: bytes the device wrote, as it writes them
 *                             &lt;------    recvStarted: a message starts landing in the oldest receive
 *                             &lt;------    sendRetired / recvCompleted: done with the bytes; for a
 *                                         signaled WR (or an error) its completion follows
 * </pre>
 * A send queue retires its work requests in posting order, whether or not they are signaled
 * (IBA 10.8.3: an unsignaled WR completes when a later completion is generated), so
 * {@link #sendRetired} names the oldest WR that {@link #sendPosted} reported for the QP. A receive
 * queue completes in order too: {@link #recvCompleted} is for the oldest receive of the QP's own
 * receive queue, or, on a QP with an SRQ, for the receive its last {@link #recvStarted} took.
 * {@link #queuesDiscarded} (a move to RESET) and {@link #destroyed} of a QP or SRQ drop the WRs
 * still posted there without completions, as ibv_modify_qp(3) and ibv_destroy_qp(3) say.
 *
 * <h2>Threads</h2>
 * Creation and destruction are reported on the application's thread once the verb has succeeded
 * (so a stack trace taken there names the application's code); posts on the posting thread,
 * before the device can see the work request; everything the engine does on the device's executor,
 * before the completion it produces is visible. Under the deterministic scheduler calls happen in
 * a reproducible order. Objects a closing fabric ({@link Fabric#close()}) takes down are not
 * reported one by one.
 *
 * <p>Implementations must be thread-safe, must not block and must not throw (an exception on the
 * engine thread fails the engine); they may read and write the registered bytes through
 * {@link MemoryRegion#buffer()} and read the objects' state, and must not call any other verb.
 * The work request objects are valid only during the call.
 */
public interface FabricObserver {

    /**
     * A verbs object was created: a {@link ProtectionDomain}, {@link MemoryRegion},
     * {@link MemoryWindow}, {@link CompletionQueue}, {@link CompletionChannel}, {@link QueuePair}
     * or {@link SharedReceiveQueue}. On the creating thread.
     */
    default void created(Object object) {}

    /**
     * The application destroyed a verbs object (deallocated, deregistered, destroyed). On the
     * destroying thread, after the verb succeeded; the object's accessors still answer (a
     * destroyed CQ's {@link CompletionQueue#size()} counts the completions nobody polled).
     */
    default void destroyed(Object object) {}

    /** {@code wr} was queued on {@code qp}'s send queue (one call per WR of a posted chain). Posting thread. */
    default void sendPosted(QueuePair qp, SendWr wr) {}

    /**
     * {@code wr} was queued on a receive queue: {@code qp}'s, or, when {@code qp} is null,
     * {@code srq}'s. Posting thread.
     */
    default void recvPosted(QueuePair qp, SharedReceiveQueue srq, RecvWr wr) {}

    /**
     * {@code qp}'s responder took its oldest receive (from its receive queue, or the oldest of its
     * SRQ) for a message that starts arriving: the device writes into it from now on. Engine thread.
     */
    default void recvStarted(QueuePair qp) {}

    /**
     * The oldest send WR of {@code qp} was retired: the device is done with its memory.
     * {@code completion} is true if a completion entry follows (signaled, sq_sig_all, or an
     * error). Engine thread.
     */
    default void sendRetired(QueuePair qp, long wrId, WcStatus status, boolean completion) {}

    /**
     * The receive {@code wrId} of {@code qp} completed (success, error or flush): the device is
     * done with its memory. A RECV completion wrote {@code byteLength} bytes from the start of its
     * scatter list; a {@link WcOpcode#RECV_RDMA_WITH_IMM} wrote none of them (its bytes went to
     * the RDMA WRITE's target). Engine thread.
     */
    default void recvCompleted(QueuePair qp, long wrId, WcStatus status, WcOpcode opcode, int byteLength) {}

    /**
     * The device wrote {@code length} bytes of {@code mr} from {@code offset} (an index of
     * {@link MemoryRegion#buffer()}): a message landing in a receive, an RDMA READ response or an
     * atomic's original value landing in local memory, or a peer's RDMA WRITE or atomic executing
     * here. Engine thread, after the bytes are written; a checker compares them with what the
     * application wrote.
     */
    default void deviceWrote(MemoryRegion mr, int offset, int length) {}

    /** {@code qp} moved to RESET: every WR it had posted is gone without a completion. Engine thread. */
    default void queuesDiscarded(QueuePair qp) {}
}
