package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An IA connects more endpoints than the connection manager's ephemeral ports (49152-65535) hold:
 * once they are all taken, a connecting endpoint takes a free port below them.
 */
class ActivePortTest {

    @Test
    @DisplayName(
            "dat_ep_connect(3DAT): with every ephemeral port taken the endpoint connects from port 49151 (its local_port_qual)")
    void shouldConnectFromBelowTheEphemeralRangeWhenItIsFull() {
        try (DatPair pair = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            SimIa ia = (SimIa) pair.a.ia;
            CmEventChannel ch = ia.cm.createEventChannel();
            List<CmId> taken = new ArrayList<>();
            try {
                for (int port = 49152; port <= 65535; port++) {
                    CmId id = ia.cm.createId(ch, null, PortSpace.IB);
                    id.bind(RdmaCm.addressOf(ia.device, port));
                    taken.add(id);
                }
                Endpoint a = pair.a.ep();
                Endpoint b = pair.b.ep();
                pair.connect(a, b);
                assertEquals(EndpointState.CONNECTED, a.query().state(), "the endpoint connected");
                assertEquals(
                        SimIa.ACTIVE_PORT_HIGH,
                        a.query().localPortQual().orElseThrow(),
                        "local_port_qual: the first port below the ephemeral range");
                Endpoint c = pair.a.ep();
                Endpoint d = pair.b.ep();
                pair.connect(c, d);
                assertEquals(
                        SimIa.ACTIVE_PORT_HIGH - 1, c.query().localPortQual().orElseThrow(), "the next one down");
            } finally {
                for (CmId id : taken) {
                    id.destroy();
                }
                ch.destroy();
            }
        }
    }
}
