package io.simrdma.examples;

import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * rping(1) over verbs and the RDMA connection manager, with rping's own protocol. Per iteration:
 * <ol>
 *   <li>the client SENDs the address, rkey and length of its source buffer;</li>
 *   <li>the server RDMA-READs that buffer, then SENDs "go ahead";</li>
 *   <li>the client SENDs the address of its sink buffer;</li>
 *   <li>the server RDMA-WRITEs what it read into the sink, then SENDs "done";</li>
 *   <li>the client checks that sink and source are equal (rping -V).</li>
 * </ol>
 * The client never touches the server's memory: the server moves the data both ways.
 */
final class RpingVerbs implements Example {

    static final int SIZE = 64;
    static final int COUNT = 3;
    // Offsets in each host's registered buffer.
    static final int RECV_INFO = 0; // where a rping_rdma_info message arrives
    static final int SEND_INFO = 16; // where one is built before it is sent
    static final int SOURCE = 64; // client: the ping data; server: where it reads it to
    static final int SINK = 256; // client: where the server writes it back

    @Override
    public String name() {
        return "rping-verbs";
    }

    @Override
    public String summary() {
        return "rping over verbs and the connection manager: the server RDMA-READs the client's buffer and writes it back";
    }

    @Override
    public void run(Context context) {
        try (Lab lab = new Lab("rping-verbs", 2, context)) {
            Lab.Host server = lab.host("server", 512);
            Lab.Host client = lab.host("client", 512);

            // The connection manager: the server listens on port 7174 (rping's default), the client
            // resolves the address and route, creates its QP and connects (REQ, REP, RTU on the wire).
            RdmaCm cm = RdmaCm.of(lab.fabric);
            CmEventChannel sch = cm.createEventChannel();
            CmEventChannel cch = cm.createEventChannel();
            CmId listener = cm.createId(sch, null, PortSpace.TCP);
            listener.bind(RdmaCm.addressOf(server.device, 7174));
            listener.listen(1);
            CmId cid = cm.createId(cch, null, PortSpace.TCP);
            cid.bind(RdmaCm.addressOf(client.device, 0));
            cid.resolveAddr(null, RdmaCm.addressOf(server.device, 7174), 2000);
            expect(cch, CmEventType.ADDR_RESOLVED).ack();
            cid.resolveRoute(2000);
            expect(cch, CmEventType.ROUTE_RESOLVED).ack();
            QpInitAttr attr = QpInitAttr.rc(client.cq, client.cq).caps(QpCaps.defaults());
            cid.createQp(client.pd, attr);
            cid.connect(ConnParam.withPrivateData(new byte[0]));
            CmEvent request = expect(sch, CmEventType.CONNECT_REQUEST);
            CmId sid = request.id();
            sid.createQp(server.pd, QpInitAttr.rc(server.cq, server.cq).caps(QpCaps.defaults()));
            sid.accept(ConnParam.withPrivateData(new byte[0]));
            request.ack();
            expect(cch, CmEventType.ESTABLISHED).ack();
            expect(sch, CmEventType.ESTABLISHED).ack();
            QueuePair sqp = sid.qp();
            QueuePair cqp = cid.qp();
            lab.say("connected: client QP " + cqp.qpNum() + " <-> server QP " + sqp.qpNum());

            for (int i = 0; i < COUNT; i++) {
                // the ping data, as rping fills it: a counter and the printable characters from it on
                String ping = String.format("rdma-ping-%d: ", i);
                for (int k = 0; ping.length() < SIZE; k++) {
                    ping += (char) (33 + (i + k) % 94);
                }
                client.buf.put(SOURCE, ping.getBytes(StandardCharsets.US_ASCII));
                sqp.postRecv(new RecvWr().wrId(1).sge(server.mr, RECV_INFO, 16));

                // 1. client -> server: "my source buffer is here" (rping_rdma_info: addr, rkey, size)
                info(client, client.mr.address() + SOURCE, client.mr.rkey(), SIZE);
                cqp.postRecv(new RecvWr().wrId(2).sge(client.mr, RECV_INFO, 16));
                cqp.postSend(new SendWr()
                        .wrId(3)
                        .opcode(WrOpcode.SEND)
                        .sge(client.mr, SEND_INFO, 16)
                        .flag(SendFlag.SIGNALED));
                server.await();
                client.await();
                long addr = server.buf.getLong(RECV_INFO);
                int rkey = server.buf.getInt(RECV_INFO + 8);
                int len = server.buf.getInt(RECV_INFO + 12);

                // 2. server: RDMA READ the client's source, then SEND "go ahead"
                sqp.postSend(new SendWr()
                        .wrId(4)
                        .opcode(WrOpcode.RDMA_READ)
                        .sge(server.mr, SOURCE, len)
                        .remote(addr, rkey)
                        .flag(SendFlag.SIGNALED));
                server.await();
                sqp.postRecv(new RecvWr().wrId(1).sge(server.mr, RECV_INFO, 16));
                info(server, server.mr.address() + SOURCE, server.mr.rkey(), len);
                sqp.postSend(new SendWr()
                        .wrId(5)
                        .opcode(WrOpcode.SEND)
                        .sge(server.mr, SEND_INFO, 16)
                        .flag(SendFlag.SIGNALED));
                server.await();
                client.await();

                // 3. client -> server: "my sink buffer is here"
                cqp.postRecv(new RecvWr().wrId(2).sge(client.mr, RECV_INFO, 16));
                info(client, client.mr.address() + SINK, client.mr.rkey(), SIZE);
                cqp.postSend(new SendWr()
                        .wrId(6)
                        .opcode(WrOpcode.SEND)
                        .sge(client.mr, SEND_INFO, 16)
                        .flag(SendFlag.SIGNALED));
                server.await();
                client.await();

                // 4. server: RDMA WRITE what it read into the client's sink, then SEND "done"
                sqp.postSend(new SendWr()
                        .wrId(7)
                        .opcode(WrOpcode.RDMA_WRITE)
                        .sge(server.mr, SOURCE, len)
                        .remote(server.buf.getLong(RECV_INFO), server.buf.getInt(RECV_INFO + 8))
                        .flag(SendFlag.SIGNALED));
                server.await();
                sqp.postSend(new SendWr()
                        .wrId(8)
                        .opcode(WrOpcode.SEND)
                        .sge(server.mr, SEND_INFO, 16)
                        .flag(SendFlag.SIGNALED));
                server.await();
                client.await();

                // 5. client: the sink must equal the source (rping -V)
                Lab.check(
                        client.buf.slice(SOURCE, SIZE).equals(client.buf.slice(SINK, SIZE)),
                        "iteration " + i + ": sink differs from source");
                lab.say("ping data: " + ping);
            }

            cid.disconnect();
            expect(cch, CmEventType.DISCONNECTED).ack();
            expect(sch, CmEventType.DISCONNECTED).ack();
            lab.say("disconnected after " + COUNT + " verified pings");
            cid.destroyQp();
            sid.destroyQp();
            cid.destroy();
            sid.destroy();
            listener.destroy();
        }
    }

    /** Builds a rping_rdma_info (buf, rkey, size; network byte order) in the host's send slot. */
    private static void info(Lab.Host h, long addr, int rkey, int size) {
        h.buf.putLong(SEND_INFO, addr).putInt(SEND_INFO + 8, rkey).putInt(SEND_INFO + 12, size);
    }

    private static CmEvent expect(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(5, TimeUnit.SECONDS);
        Lab.check(e != null && e.type() == type, "expected " + type + ", got " + e);
        return e;
    }
}
