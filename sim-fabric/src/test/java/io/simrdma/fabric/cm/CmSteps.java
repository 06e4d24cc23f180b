package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The connection-manager steps every CM fixture repeats (CmTestKit, CmRig, and TcpPair in the
 * tcp package): waiting for the next event of a type with a deadline, and resolving an id's
 * address and route (rdma_resolve_addr(3), rdma_resolve_route(3)). Waits run on the fabric's
 * clock: virtual time under the deterministic scheduler, real time otherwise.
 */
public final class CmSteps {

    private CmSteps() {}

    /**
     * The next event of {@code ch} within {@code seconds}, which must be of {@code type}; not
     * acknowledged (rdma_get_cm_event(3)).
     */
    public static CmEvent next(CmEventChannel ch, CmEventType type, long seconds) {
        CmEvent e = ch.getEvent(seconds, TimeUnit.SECONDS);
        assertNotNull(e, () -> "expected " + type.text() + ", got no event within " + seconds + " s");
        assertEquals(type, e.type(), () -> "expected " + type.text() + ", got " + e);
        return e;
    }

    /** {@link #next}, then acknowledged (rdma_ack_cm_event(3)); its data stays readable. */
    public static CmEvent nextAcked(CmEventChannel ch, CmEventType type, long seconds) {
        CmEvent e = next(ch, type, seconds);
        e.ack();
        return e;
    }

    /**
     * Resolves the address ({@code src} may be null) and then the route of an id on a channel,
     * each with a timeout of {@code timeoutMs}, acknowledging ADDR_RESOLVED and ROUTE_RESOLVED.
     */
    public static void resolve(CmId id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs, long seconds) {
        id.resolveAddr(src, dst, timeoutMs);
        nextAcked(id.channel(), CmEventType.ADDR_RESOLVED, seconds);
        id.resolveRoute(timeoutMs);
        nextAcked(id.channel(), CmEventType.ROUTE_RESOLVED, seconds);
    }
}
