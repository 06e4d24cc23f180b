package io.simrdma.dat;

/**
 * What every DAT object has in common ({@code DAT_HANDLE}): its {@link #handleType() type} and a
 * {@link #consumerContext() consumer context}. In C a handle is an opaque pointer; in Java the
 * object is its own handle. A handle of a destroyed object (freed, or cascaded away by
 * {@link InterfaceAdapter#close(CloseFlag) dat_ia_close}) fails every later operation with
 * {@code DAT_INVALID_HANDLE} (and the subtype naming the handle, for example
 * {@code DAT_INVALID_HANDLE_EP}), except where a man page says otherwise. Passing a handle of another
 * provider fails the same way. A {@code null} argument stands for {@code DAT_HANDLE_NULL} where the
 * man page allows it, and fails with {@code DAT_INVALID_HANDLE} where it does not.
 *
 * <p>Thread safety, for this and every handle type: a provider states whether it is thread-safe in
 * {@link ProviderAttributes#threadSafe()}; the simrdma provider is. As in DAT, the consumer
 * serialises what the man pages leave to it (for example the order of dequeues from one EVD by
 * several threads). The consumer context is stored so that a value set by one thread is seen by the
 * next get in any thread; no other synchronisation is implied.
 */
public interface DatHandle {

    /**
     * The type of this handle. Corresponds to {@code dat_get_handle_type()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} if the object was destroyed
     */
    HandleType handleType();

    /**
     * The consumer context last set, or {@code null} if none. The provider never looks at it.
     * Corresponds to {@code dat_get_consumer_context()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} if the object was destroyed
     */
    Object consumerContext();

    /**
     * Associates {@code context} with this handle, replacing any previous one; {@code null} removes
     * it. Corresponds to {@code dat_set_consumer_context()}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE} if the object was destroyed
     */
    void setConsumerContext(Object context);
}
