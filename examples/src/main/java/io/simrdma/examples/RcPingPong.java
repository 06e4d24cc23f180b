package io.simrdma.examples;

import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RcConnect;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;

/**
 * ibv_rc_pingpong(1) on the simulated fabric: two RC queue pairs connected without a connection
 * manager. Each side tells the other, out of band (ibv_rc_pingpong uses a TCP socket), three
 * things: its port's address (GID), its QP number and the first PSN it will send; then each moves
 * its own QP RESET -> INIT -> RTR -> RTS with the other's values, and they bounce a message.
 */
final class RcPingPong implements Example {

    private static final int SIZE = 4096;
    private static final int ITERS = 5;

    @Override
    public String name() {
        return "rc-pingpong";
    }

    @Override
    public String summary() {
        return "ibv_rc_pingpong: QPs connected out of band (GID, QPN, PSN), then SEND ping-pong";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("rc-pingpong", 1, context)) {
            Lab.Host server = lab.host("server", 2 * SIZE);
            Lab.Host client = lab.host("client", 2 * SIZE);
            QueuePair sqp = server.qp();
            QueuePair cqp = client.qp();

            // 1. The out-of-band exchange. ibv_rc_pingpong picks a random 24-bit first PSN per side.
            int serverPsn = 0x3a1f07;
            int clientPsn = 0x51c2e4;
            RcConnect.Endpoint serverEnd = RcConnect.Endpoint.of(sqp, serverPsn);
            RcConnect.Endpoint clientEnd = RcConnect.Endpoint.of(cqp, clientPsn);
            print(lab, "server", serverEnd, clientEnd);
            print(lab, "client", clientEnd, serverEnd);

            // 2. Each side connects its own QP with what the other told it (ibv_modify_qp three times).
            RcConnect.Options opts = RcConnect.Options.defaults();
            RcConnect.connect(sqp, serverPsn, clientEnd, opts);
            RcConnect.connect(cqp, clientPsn, serverEnd, opts);
            lab.say("both QPs in RTS: " + sqp.state() + " / " + cqp.state());

            // 3. Ping-pong: a receive must be posted before the peer's SEND arrives (else: RNR NAK).
            long start = lab.fabric.now();
            for (int i = 0; i < ITERS; i++) {
                server.buf.put(SIZE, (byte) 0);
                sqp.postRecv(new RecvWr().wrId(i).sge(server.mr, SIZE, SIZE));
                cqp.postRecv(new RecvWr().wrId(i).sge(client.mr, SIZE, SIZE));
                client.buf.put(0, (byte) ('a' + i));
                cqp.postSend(new SendWr()
                        .wrId(100 + i)
                        .opcode(WrOpcode.SEND)
                        .sge(client.mr, 0, SIZE)
                        .flag(SendFlag.SIGNALED));
                WorkCompletion got = server.await(); // the ping arrives ...
                Lab.check(got.byteLen() == SIZE && server.buf.get(SIZE) == 'a' + i, "ping " + i + " corrupted");
                server.buf.put(0, server.buf.get(SIZE));
                sqp.postSend(new SendWr()
                        .wrId(200 + i)
                        .opcode(WrOpcode.SEND)
                        .sge(server.mr, 0, SIZE)
                        .flag(SendFlag.SIGNALED)); // ... and goes back as the pong
                server.await();
                client.await(); // the ping's send completion
                client.await(); // the pong
                Lab.check(client.buf.get(SIZE) == 'a' + i, "pong " + i + " corrupted");
            }
            double micros = (lab.fabric.now() - start) / 1000.0;
            lab.say(String.format(
                    "%d bytes in %.3f us = %.1f Mbit/sec", 2L * ITERS * SIZE, micros, 2.0 * ITERS * SIZE * 8 / micros));
            lab.say(String.format("%d iters in %.3f us = %.3f us/iter", ITERS, micros, micros / ITERS));
        }
    }

    private static void print(Lab lab, String who, RcConnect.Endpoint local, RcConnect.Endpoint remote) {
        lab.out()
                .printf(
                        "%s:  local address:  QPN 0x%06x, PSN 0x%06x, GID %s%n",
                        who, local.qpn(), local.psn(), local.gid());
        lab.out()
                .printf(
                        "%s:  remote address: QPN 0x%06x, PSN 0x%06x, GID %s%n",
                        who, remote.qpn(), remote.psn(), remote.gid());
    }
}
