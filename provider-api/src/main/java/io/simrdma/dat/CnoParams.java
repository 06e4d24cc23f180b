package io.simrdma.dat;

import java.util.Optional;

/**
 * The parameters of a Consumer Notification Object ({@code DAT_CNO_PARAM}), as
 * {@link ConsumerNotificationObject#query()} returns them.
 *
 * <p>Thread safety: immutable.
 *
 * @param ia the IA
 * @param agent the OS Wait Proxy Agent; empty for {@code DAT_OS_WAIT_PROXY_AGENT_NULL}
 */
public record CnoParams(InterfaceAdapter ia, Optional<WaitProxyAgent> agent) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public CnoParams {
        Checks.notNull(ia, "ia");
        Checks.notNull(agent, "agent");
    }
}
