package io.simrdma.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.junit.SimFabricExtensionTest.Pair;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link Faults}: scripts compiled onto the links of every fabric mode, in-process and TCP, and the
 * wait until a script fired. The application's RC QP rides each fault out (IBA 9.7.6: the
 * requester retransmits after its ACK timeout).
 */
@SimFabricTest
class FaultsTest {

    static void write(Pair p, long id) {
        p.qa.postSend(new SendWr()
                .wrId(id)
                .opcode(WrOpcode.RDMA_WRITE)
                .sge(p.ma, 0, 64)
                .remote(p.mb.address(), p.mb.rkey())
                .flag(SendFlag.SIGNALED));
        assertEquals(WcStatus.SUCCESS, Pair.poll(p.ca).status(), "the WRITE completes despite the fault");
    }

    @FabricMatrix
    @DisplayName("'drop 2nd RDMA_WRITE a->b' fires once on any link kind, and the WRITE is sent again")
    void shouldFireOnceWhenNthPacketOfKindIsSent(@Node("a") Device a, @Node("b") Device b, Faults faults) {
        ScriptedFault f = faults.add("drop 2nd RDMA_WRITE a->b");
        Pair p = new Pair(a, b);
        write(p, 1);
        write(p, 2);
        write(p, 3);
        f.awaitFired(5, TimeUnit.SECONDS);
        assertEquals(1, f.hits(), "only the 2nd");
        p.close();
    }

    @FabricMatrix(modes = {FabricMode.DETERMINISTIC, FabricMode.THREADED})
    @DisplayName("'partition a-b 0ms..20ms': packets in the window are lost, the WRITE completes after it")
    void shouldDropEverythingWhenInsidePartitionWindow(
            @Node("a") Device a, @Node("b") Device b, Faults faults, TestFabric net) {
        Pair p = new Pair(a, b);
        ScriptedFault cut = faults.add("partition a-b 0ms..20ms");
        long start = net.fabric().now();
        write(p, 1);
        assertTrue(cut.hits() >= 1, "the first WRITE fell in the window");
        assertTrue(
                net.fabric().now() - start >= 20_000_000L,
                "completed after the window closed, at " + (net.fabric().now() - start) + " ns");
        p.close();
    }

    @Test
    @DisplayName("'delay 50us' adds 50 us to each packet's trip: a WRITE's round trip takes at least 100 us more")
    void shouldAddLatencyWhenDelayed(@Node("a") Device a, @Node("b") Device b, Faults faults, TestFabric net) {
        Pair p = new Pair(a, b);
        long t0 = net.fabric().now();
        write(p, 1);
        long plain = net.fabric().now() - t0;
        ScriptedFault d = faults.add(FaultScript.delay(50, TimeUnit.MICROSECONDS));
        long t1 = net.fabric().now();
        write(p, 2);
        long delayed = net.fabric().now() - t1;
        assertTrue(delayed - plain >= 100_000, "round trip " + plain + " ns plain, " + delayed + " ns delayed");
        assertEquals(2, d.hits(), "the WRITE and its ACK");
        p.close();
    }

    @Test
    @DisplayName("a script naming a device the test does not have is refused with the test's devices")
    void shouldRefuseScriptWhenDeviceIsUnknown(Faults faults) {
        assertEquals(
                "fault script 'partition a-c 1ms..2ms' names device c; the test's devices are [a, b]",
                assertThrows(IllegalArgumentException.class, () -> faults.add("partition a-c 1ms..2ms"))
                        .getMessage());
    }

    @Test
    @DisplayName("a script that never fires fails awaitFired with its text")
    void shouldFailAwaitWhenScriptNeverFires(Faults faults) {
        ScriptedFault f = faults.add("drop 1st NAK");
        AssertionError e = assertThrows(AssertionError.class, () -> f.awaitFired(1, TimeUnit.MILLISECONDS));
        assertTrue(
                e.getMessage()
                        .startsWith("fault script 'drop 1st NAK' did not fire within 1 milliseconds of fabric time"),
                e.getMessage());
    }
}
