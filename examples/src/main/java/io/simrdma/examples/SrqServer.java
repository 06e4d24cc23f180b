package io.simrdma.examples;

import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.SharedReceiveQueue;
import io.simrdma.fabric.SrqAttr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A server with many clients and one shared receive queue (ibv_create_srq): instead of posting
 * receives on every connection's QP, the server posts them once, on the SRQ, and a SEND on any of
 * its QPs takes the next one. The completion's QP number says which connection the message came on.
 */
final class SrqServer implements Example {

    private static final int CLIENTS = 4;
    private static final int MESSAGES = 2;
    private static final int SLOT = 64;

    @Override
    public String name() {
        return "srq-server";
    }

    @Override
    public String summary() {
        return "one shared receive queue serves four clients' QPs; the completion names the QP";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("srq-server", 6, context)) {
            Lab.Host server = lab.host("server", SLOT * CLIENTS * MESSAGES);
            SharedReceiveQueue srq = server.pd.createSrq(new SrqAttr(CLIENTS * MESSAGES, 1, 0));
            // one receive per expected message, each with its own slot of the server's buffer
            for (int i = 0; i < CLIENTS * MESSAGES; i++) {
                srq.postRecv(new RecvWr().wrId(i).sge(server.mr, (long) i * SLOT, SLOT));
            }
            List<Lab.Host> clients = new ArrayList<>();
            List<QueuePair> qps = new ArrayList<>();
            List<Integer> serverQpns = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                Lab.Host h = lab.host("client" + c, SLOT * MESSAGES);
                QueuePair mine = h.qp();
                QueuePair theirs = server.qp(srq); // the server's QP takes receives from the SRQ
                RcConnect.connect(mine, theirs);
                clients.add(h);
                qps.add(mine);
                serverQpns.add(theirs.qpNum());
            }
            lab.say("server: " + CLIENTS + " QPs " + serverQpns + " share one SRQ holding " + CLIENTS * MESSAGES
                    + " receives");
            for (int m = 0; m < MESSAGES; m++) {
                for (int c = 0; c < CLIENTS; c++) {
                    // each message in its own slot: the HCA reads the bytes when it sends them, not when
                    // they are posted, so a buffer must stay untouched until its send completes
                    byte[] text = ("hello " + m + " from client" + c).getBytes(StandardCharsets.US_ASCII);
                    clients.get(c).buf.put(m * SLOT, text);
                    qps.get(c)
                            .postSend(new SendWr()
                                    .wrId(m)
                                    .opcode(WrOpcode.SEND)
                                    .sge(clients.get(c).mr, (long) m * SLOT, text.length)
                                    .flag(SendFlag.SIGNALED));
                }
            }
            int[] perClient = new int[CLIENTS];
            for (int i = 0; i < CLIENTS * MESSAGES; i++) {
                WorkCompletion wc = server.await();
                int c = serverQpns.indexOf(wc.qpNum());
                perClient[c]++;
                byte[] got = new byte[wc.byteLen()];
                server.buf.get((int) wc.wrId() * SLOT, got);
                lab.say("server: receive " + wc.wrId() + " completed on QP " + wc.qpNum() + " (client" + c + "): \""
                        + new String(got, StandardCharsets.US_ASCII) + "\"");
            }
            for (int c = 0; c < CLIENTS; c++) {
                Lab.check(perClient[c] == MESSAGES, "client" + c + ": " + perClient[c] + " messages received");
                for (int m = 0; m < MESSAGES; m++) {
                    clients.get(c).await();
                }
            }
            lab.say("server: every client's " + MESSAGES + " messages arrived through the one SRQ");
        }
    }
}
