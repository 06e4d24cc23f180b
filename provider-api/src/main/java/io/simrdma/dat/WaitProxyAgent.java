package io.simrdma.dat;

/**
 * An OS Wait Proxy Agent ({@code DAT_OS_WAIT_PROXY_AGENT}): called when its CNO is triggered, in
 * addition to waking the CNO's waiters. After it is called it is no longer associated with the CNO
 * (dat_cno_create(3DAT)); associate it again with
 * {@link ConsumerNotificationObject#modifyAgent}. The C struct's {@code instance_data} is whatever the
 * implementation captures; {@code proxy_agent_func} is {@link #onNotification}. {@code null} where
 * an agent is expected stands for {@code DAT_OS_WAIT_PROXY_AGENT_NULL}.
 *
 * <p>Thread safety: the provider may call the agent from any thread, including its own event
 * threads; the agent must not block.
 */
@FunctionalInterface
public interface WaitProxyAgent {

    /**
     * The CNO was triggered by {@code evd} ({@code null} when the IA is closed or every EVD of the
     * CNO was freed).
     */
    void onNotification(EventDispatcher evd);
}
