package io.simrdma.junit.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Counter;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.junit.FabricMatrix;
import io.simrdma.junit.Faults;
import io.simrdma.junit.Node;
import io.simrdma.junit.OwnershipChecker;
import io.simrdma.junit.ScriptedFault;
import io.simrdma.junit.SimFabricTest;
import io.simrdma.junit.TestFabric;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The example application (a key-value store over RDMA READ and WRITE) tested the way an
 * application developer would with simrdma-junit: on every fabric mode and device profile, under a
 * scripted fault, and under the buffer-ownership checker that catches the mistake its first version
 * made.
 */
@SimFabricTest
class KvStoreTest {

    @FabricMatrix(profiles = {"ibta", "mlx5", "rxe", "siw"})
    @DisplayName("put then get returns the value on every fabric mode and device profile")
    void shouldGetWhatWasPutWhenRunOnAnyFabric(@Node("a") Device a, @Node("b") Device b) {
        try (KvServer server = new KvServer(b);
                KvClient client = new KvClient(a, server)) {
            for (int k = 0; k < 8; k++) {
                client.put(k, "value-" + k);
            }
            for (int k = 0; k < 8; k++) {
                assertEquals("value-" + k, client.get(k), "get(" + k + ")");
            }
            assertEquals("", client.get(42), "a slot never written reads as empty");
        }
    }

    @Test
    @DisplayName(
            "IBA 9.7.5.1 (READ responses lost): the requester reads again after its ACK timeout and get still returns the value")
    void shouldGetTheValueWhenTheThirdReadResponseIsLost(TestFabric net, Faults faults) {
        ScriptedFault lost = faults.add("drop 3rd READ_RESPONSE");
        try (KvServer server = new KvServer(net.device("b"));
                KvClient client = new KvClient(net.device("a"), server)) {
            client.put(1, "one");
            client.put(2, "two");
            client.put(3, "three");
            assertEquals("one", client.get(1));
            assertEquals("two", client.get(2));
            assertEquals("three", client.get(3), "the READ whose response was dropped is answered again");
            lost.awaitFired(1, TimeUnit.SECONDS);
            assertEquals(1, lost.hits(), "the script drops exactly the 3rd READ response");
            assertTrue(
                    net.counters("a").get(Counter.RETRANSMITTED_PACKETS) >= 1,
                    "expected a retransmitted READ request on a, saw "
                            + net.counters("a").get(Counter.RETRANSMITTED_PACKETS));
        }
    }

    /**
     * The client's first version, kept to show the mistake: put posts an unsignaled RDMA WRITE from the
     * one staging buffer and returns at once. The next put rewrites the staging buffer while the
     * first WRITE is still the device's.
     */
    static final class KvClientV1 extends KvClient {
        KvClientV1(Device device, KvServer server) {
            super(device, server);
        }

        @Override
        public void put(int key, String value) {
            encode(value);
            wr.clear()
                    .wrId(nextId())
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(stagingMr, 0, KvServer.SLOT)
                    .remote(slotAddress(key), tableRkey)
                    .clearFlag(SendFlag.SIGNALED);
            qp.postSend(wr);
        }
    }

    @Test
    @DisplayName(
            "ibv_post_send(3): the first put rewrote its staging buffer before the WRITE completed; the ownership checker names the WR and the bytes")
    void shouldReportOwnershipViolationWhenFirstVersionReusesItsStagingBuffer(
            TestFabric net, OwnershipChecker checker) {
        try (KvServer server = new KvServer(net.device("b"));
                KvClient v1 = new KvClientV1(net.device("a"), server)) {
            v1.put(1, "alpha");
            v1.put(2, "bravo");
            String got = v1.get(1);
            List<String> violations = checker.takeViolations();
            assertEquals(1, violations.size(), "one violation expected, saw " + violations);
            String v = violations.get(0);
            assertTrue(v.startsWith("WR 1 (RDMA_WRITE) on QP 0x"), v);
            assertTrue(
                    v.contains("source buffer sge 0")
                            && v.contains("bytes [4, 9) of the region written by the application"),
                    v);
            // "alpha" at post, "bravo" when the device read it
            assertTrue(v.contains("posted: 61 6c 70 68 61") && v.contains("now:    62 72 61 76 6f"), v);
            assertEquals(
                    "bravo",
                    got,
                    "on the deterministic fabric the device read the staging buffer late, as a NIC may:"
                            + " key 1 holds the second value");
        }
    }

    @Test
    @DisplayName(
            "the fixed put waits for its WRITE's completion before reusing the staging buffer: no violation, right values")
    void shouldPassOwnershipCheckWhenPutWaitsForItsCompletion(TestFabric net, OwnershipChecker checker) {
        try (KvServer server = new KvServer(net.device("b"));
                KvClient client = new KvClient(net.device("a"), server)) {
            client.put(1, "alpha");
            client.put(2, "bravo");
            assertEquals("alpha", client.get(1));
            assertEquals("bravo", client.get(2));
            assertEquals(List.of(), checker.violations());
        }
    }
}
