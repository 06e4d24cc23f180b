package io.simrdma.examples;

import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcOpcode;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.charset.StandardCharsets;

/**
 * RDMA WRITE with immediate data as a doorbell. A plain RDMA WRITE lands in the server's memory
 * without the server's CPU ever hearing of it. With immediate data the last packet also consumes
 * a receive the server posted, and the server's CQ gets a completion carrying the 32-bit immediate:
 * the data and the "it's there" signal travel together, in order. Here the client fills the slots
 * of a ring in the server's memory and rings the doorbell with the slot number.
 */
final class WriteImmDoorbell implements Example {

    private static final int SLOT = 1024;
    private static final int SLOTS = 4;

    @Override
    public String name() {
        return "write-imm";
    }

    @Override
    public String summary() {
        return "RDMA WRITE with immediate data: the data lands, and the immediate rings the server's doorbell";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("write-imm", 4, context)) {
            Lab.Host server = lab.host("server", SLOT * SLOTS);
            Lab.Host client = lab.host("client", SLOT);
            QueuePair sqp = server.qp();
            QueuePair cqp = client.qp();
            RcConnect.connect(sqp, cqp);
            // The client learns the ring's address and rkey out of band (as rping does with a SEND).
            long ring = server.mr.address();
            int rkey = server.mr.rkey();

            for (int slot = 0; slot < SLOTS; slot++) {
                // The immediate needs a receive WQE; it takes no data, so it needs no buffer.
                sqp.postRecv(new RecvWr().wrId(slot));
                byte[] msg = ("message " + slot + " for the ring").getBytes(StandardCharsets.US_ASCII);
                client.buf.put(0, msg);
                cqp.postSend(new SendWr()
                        .wrId(slot)
                        .opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                        .sge(client.mr, 0, msg.length)
                        .remote(ring + (long) slot * SLOT, rkey)
                        .immData(slot)
                        .flag(SendFlag.SIGNALED));
                WorkCompletion doorbell = server.await();
                Lab.check(doorbell.opcode() == WcOpcode.RECV_RDMA_WITH_IMM, "expected RECV_RDMA_WITH_IMM: " + doorbell);
                int rung = doorbell.immData();
                byte[] got = new byte[doorbell.byteLen()];
                server.buf.get(rung * SLOT, got);
                lab.say("server: " + doorbell.opcode() + ", immediate " + rung + ", " + doorbell.byteLen()
                        + " bytes in slot " + rung + ": \"" + new String(got, StandardCharsets.US_ASCII) + "\"");
                Lab.check(
                        new String(got, StandardCharsets.US_ASCII).equals("message " + slot + " for the ring"),
                        "slot " + slot + " holds the wrong bytes");
                client.await();
            }
        }
    }
}
