package io.simrdma.examples;

import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WrOpcode;
import java.util.ArrayList;
import java.util.List;

/**
 * An 8-byte counter in the server's memory shared by several clients through RDMA atomics. Each
 * FETCH_AND_ADD adds to the counter and returns, into the client's memory, the value it had
 * before: no two clients ever see the same value, and the server's CPU does nothing. A
 * COMPARE_AND_SWAP then replaces the counter only if it holds what the client expects.
 */
final class AtomicCounter implements Example {

    private static final int CLIENTS = 3;
    private static final int ROUNDS = 3;

    @Override
    public String name() {
        return "atomic-counter";
    }

    @Override
    public String summary() {
        return "a counter shared by three clients with FETCH_AND_ADD, then a COMPARE_AND_SWAP";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("atomic-counter", 5, context)) {
            Lab.Host server = lab.host("server", 64);
            server.buf.putLong(0, 1000); // the counter starts at 1000
            List<Lab.Host> clients = new ArrayList<>();
            List<QueuePair> qps = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                Lab.Host h = lab.host("client" + c, 64);
                QueuePair mine = h.qp();
                RcConnect.connect(mine, server.qp()); // one server QP per client
                clients.add(h);
                qps.add(mine);
            }
            long counter = server.mr.address(); // atomics need an 8-byte aligned address
            int rkey = server.mr.rkey();

            List<Long> seen = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                for (int c = 0; c < CLIENTS; c++) {
                    // every client posts its add; they race on the link, the responder executes them one at a time
                    qps.get(c)
                            .postSend(new SendWr()
                                    .wrId(c)
                                    .opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                                    .sge(clients.get(c).mr, 0, 8)
                                    .remote(counter, rkey)
                                    .atomic(c + 1, 0)
                                    .flag(SendFlag.SIGNALED));
                }
                for (int c = 0; c < CLIENTS; c++) {
                    clients.get(c).await();
                    long before = clients.get(c).buf.getLong(0);
                    seen.add(before);
                    lab.say("client" + c + ": FETCH_AND_ADD +" + (c + 1) + " returned " + before);
                }
            }
            long expected = 1000 + ROUNDS * (1 + 2 + 3);
            Lab.check(server.buf.getLong(0) == expected, "counter is " + server.buf.getLong(0) + ", not " + expected);
            Lab.check(seen.stream().distinct().count() == seen.size(), "two adds returned the same value: " + seen);
            lab.say("server's counter: " + server.buf.getLong(0) + " (1000 + " + ROUNDS + " x (1 + 2 + 3))");

            // COMPARE_AND_SWAP: set the counter to 0 only if it still holds the value client0 read last
            qps.get(0)
                    .postSend(new SendWr()
                            .wrId(9)
                            .opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                            .sge(clients.get(0).mr, 0, 8)
                            .remote(counter, rkey)
                            .atomic(expected, 0)
                            .flag(SendFlag.SIGNALED));
            clients.get(0).await();
            lab.say("client0: COMPARE_AND_SWAP(" + expected + " -> 0) found "
                    + clients.get(0).buf.getLong(0) + "; counter now " + server.buf.getLong(0));
            Lab.check(server.buf.getLong(0) == 0, "the swap did not happen");
        }
    }
}
