package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EventNumber;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.TraceListener;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The provider reports its endpoints' state changes to the fabric's trace (for ladders and the run viewer). */
class EpStateTraceTest {

    @Test
    @DisplayName("dat_ep_connect(3DAT), dat_cr_accept(3DAT), dat_ep_disconnect(3DAT): each endpoint's DAT state "
            + "changes reach the fabric's trace listeners, in order, on its own device")
    void shouldTraceEveryEndpointStateChangeWhenConnectingAndDisconnecting() {
        try (DatPair pair = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            List<String> seen = new ArrayList<>();
            TraceListener l = new TraceListener() {
                @Override
                public void onStateChange(long time, Device device, String object, String from, String to) {
                    seen.add(device.name() + " " + object + " " + from + "->" + to);
                }
            };
            SimIa ia = (SimIa) pair.a.ia;
            ia.fabric.addTraceListener(l);
            Endpoint active = pair.a.ep();
            Endpoint passive = pair.b.ep();
            String a = "a EP " + ((SimEp) active).id;
            String b = "b EP " + ((SimEp) passive).id;
            pair.connect(active, passive);
            active.disconnect(CloseFlag.GRACEFUL);
            DatPair.expectConnection(pair.a.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            DatPair.expectConnection(pair.b.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            ia.fabric.removeTraceListener(l);
            assertEquals(
                    List.of(
                            a + " UNCONNECTED->ACTIVE_CONNECTION_PENDING",
                            b + " UNCONNECTED->COMPLETION_PENDING", // dat_cr_accept(3DAT)
                            a + " ACTIVE_CONNECTION_PENDING->CONNECTED",
                            b + " COMPLETION_PENDING->CONNECTED",
                            a + " CONNECTED->DISCONNECT_PENDING",
                            b + " CONNECTED->DISCONNECTED",
                            a + " DISCONNECT_PENDING->DISCONNECTED"),
                    seen,
                    "state changes as traced");
        }
    }
}
