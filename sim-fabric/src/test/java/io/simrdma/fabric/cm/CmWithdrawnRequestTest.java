package io.simrdma.fabric.cm;

import static io.simrdma.fabric.cm.CmTestKit.expectAcked;
import static io.simrdma.fabric.cm.CmTestKit.qpAttr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.simrdma.fabric.VerbsException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A requester that gives up before the passive side answers sends a REJ that names only its own
 * comm id; the passive CM finds the request by it and reports REJECTED on the request's id, so
 * the application learns the request is gone (and an accept fails at once).
 */
class CmWithdrawnRequestTest {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @DisplayName("rdma_disconnect(3) of a connecting id: the passive side's pending request ends REJECTED")
    void shouldReportRejectedOnThePendingRequestWhenTheRequesterWithdraws(boolean threaded) {
        try (CmTestKit k = CmTestKit.seeded(threaded, 9)) {
            CmId listen = k.listener(PortSpace.IB, 7000, 4);
            CmId client = k.connecting(PortSpace.IB, 7000, ConnParam.defaults());

            CmEvent req = expectAcked(k.chB, CmEventType.CONNECT_REQUEST);
            CmId pending = req.id();
            client.disconnect(); // gives up before any REP: sends a REJ

            CmEvent gone = expectAcked(k.chB, CmEventType.REJECTED);
            assertEquals(pending, gone.id());
            pending.createQp(null, qpAttr());
            assertThrows(VerbsException.class, () -> pending.accept(null), "a withdrawn request cannot be accepted");
            pending.destroyQp();
            pending.destroy();
            client.destroyQp();
            client.destroy();
            listen.destroy();
        }
    }
}
