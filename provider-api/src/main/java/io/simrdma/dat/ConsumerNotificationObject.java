package io.simrdma.dat;

/**
 * A Consumer Notification Object ({@code DAT_CNO_HANDLE}): one object to wait on for events of
 * several EVDs of the same IA. Created by {@link InterfaceAdapter#createCno} (dat_cno_create); an EVD
 * is attached with {@link InterfaceAdapter#createEvd} or {@link EventDispatcher#modifyCno}. A disabled
 * EVD, or one a thread waits on directly, does not notify.
 *
 * <p>Thread safety: see {@link DatHandle}.
 */
public interface ConsumerNotificationObject extends FreeableHandle {

    /**
     * The CNO's parameters. Corresponds to {@code dat_cno_query()} (all fields; no mask).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    CnoParams query();

    /**
     * Destroys the CNO. Corresponds to {@code dat_cno_free()}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} (an EVD refers to it or a thread waits on it),
     *         {@code DAT_INVALID_HANDLE}
     */
    @Override
    void free();

    /**
     * Waits for a notification from one of the CNO's EVDs. Corresponds to {@code dat_cno_wait()}.
     * The EVD in the result is only a hint: poll every EVD of the CNO. A timeout is a value: status
     * {@link DatReturnType#QUEUE_EMPTY}, as the man page returns. When the IA is closed or every EVD
     * of the CNO is freed, waiters return {@link DatReturnType#SUCCESS} with no EVD.
     *
     * <p>Interruption: an interrupted waiting thread fails with {@code DAT_INTERRUPTED_CALL}, its
     * interrupt status set again.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} (null timeout),
     *         {@code DAT_INTERRUPTED_CALL}, {@code DAT_INVALID_HANDLE}
     */
    CnoWaitResult waitForNotification(Timeout timeout);

    /**
     * Replaces the OS Wait Proxy Agent ({@code null}: {@code DAT_OS_WAIT_PROXY_AGENT_NULL}, none).
     * Corresponds to {@code dat_cno_modify_agent()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    void modifyAgent(WaitProxyAgent agent);
}
