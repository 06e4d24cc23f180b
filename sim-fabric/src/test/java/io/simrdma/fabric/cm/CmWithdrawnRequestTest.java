package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.VerbsException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        try (Fabric f = threaded ? Fabric.threaded() : Fabric.deterministic(9)) {
            Device a = f.createDevice("a");
            Device b = f.createDevice("b");
            RdmaCm cm = RdmaCm.of(f);
            CmEventChannel chA = cm.createEventChannel();
            CmEventChannel chB = cm.createEventChannel();
            CmId listen = cm.createId(chB, null, PortSpace.IB);
            listen.bind(RdmaCm.addressOf(b, 7000));
            listen.listen(4);
            CmId client = cm.createId(chA, null, PortSpace.IB);
            client.bind(RdmaCm.addressOf(a, 0));
            client.resolveAddr(null, RdmaCm.addressOf(b, 7000), 1000);
            expect(chA, CmEventType.ADDR_RESOLVED).ack();
            client.resolveRoute(1000);
            expect(chA, CmEventType.ROUTE_RESOLVED).ack();
            client.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            client.connect(ConnParam.defaults());

            CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
            CmId pending = req.id();
            req.ack();
            client.disconnect(); // gives up before any REP: sends a REJ

            CmEvent gone = expect(chB, CmEventType.REJECTED);
            assertEquals(pending, gone.id());
            gone.ack();
            pending.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            assertThrows(VerbsException.class, () -> pending.accept(null), "a withdrawn request cannot be accepted");
            pending.destroyQp();
            pending.destroy();
            client.destroyQp();
            client.destroy();
            listen.destroy();
        }
    }

    private static CmEvent expect(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(10, TimeUnit.SECONDS);
        assertNotNull(e, "no " + type);
        assertEquals(type, e.type(), e::toString);
        return e;
    }
}
