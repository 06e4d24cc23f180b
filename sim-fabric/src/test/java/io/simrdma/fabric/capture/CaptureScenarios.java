package io.simrdma.fabric.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.CompletionQueue;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.Link;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.ProtectionDomain;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.QueuePair;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Traffic for the capture tests: one crafted packet of every RC opcode, and a CM conversation. */
final class CaptureScenarios {

    /** The header fields of one crafted packet, as tshark prints them. */
    record Expected(
            String opcode,
            String destQp,
            String psn,
            String ackReq,
            String rethVa,
            String rethRkey,
            String rethLength,
            String aethSyndrome,
            String aethMsn,
            String immDt,
            String ieth,
            String atomicSwap,
            String atomicCompare,
            String atomicOriginal) {}

    private static final byte[] TEXT =
            "simrdma capture test payload, plain text. ".repeat(8).getBytes(StandardCharsets.US_ASCII);

    private CaptureScenarios() {}

    /**
     * Injects from {@code a} to {@code b} one packet of each RC opcode with distinct field values
     * (payloads of 256 bytes for FIRST and MIDDLE, 13 for the rest, so pad counts show), and
     * returns what each packet carries, in injection order.
     */
    static List<Expected> injectEveryRcOpcode(Fabric fabric, Device a, Device b) {
        return injectEvery(fabric, a, b, false);
    }

    /** As {@link #injectEveryRcOpcode}, followed by one packet of each UC opcode (transport 001). */
    static List<Expected> injectEveryRcAndUcOpcode(Fabric fabric, Device a, Device b) {
        return injectEvery(fabric, a, b, true);
    }

    private static List<Expected> injectEvery(Fabric fabric, Device a, Device b, boolean withUc) {
        Link link = fabric.link(a, b);
        List<Expected> sent = new ArrayList<>();
        int i = 0;
        for (Opcode op : Opcode.values()) {
            if (op.isUd() || (op.isUc() && !withUc)) {
                continue; // UD SEND Only carries CM MADs: see the CM conversation
            }
            i++;
            Packet p = Packet.allocate(op);
            int qpn = 0x000120 + i;
            int psn = 0x00F000 + i * 3;
            boolean ackReq = op.isRequest() && i % 2 == 1;
            p.destQp(qpn).pkey(0xFFFF).psn(psn).ackReq(ackReq);
            String va = "",
                    rkey = "",
                    len = "",
                    syn = "",
                    msn = "",
                    imm = "",
                    ieth = "",
                    swap = "",
                    cmp = "",
                    orig = "";
            if (op.has(HeaderType.RETH)) {
                long v = 0x00007F0000001000L + i * 0x100L;
                int k = 0x1A2B0000 + i;
                int l = op.isRead() ? 8192 : op.isOnly() ? 13 : 4096;
                p.reth(v, k, l);
                va = hex(v);
                rkey = hex(k);
                len = Integer.toString(l);
            }
            if (op.has(HeaderType.AETH)) {
                int s = op == Opcode.RC_ACKNOWLEDGE
                        ? (i % 3 == 0
                                ? Aeth.rnrNak(14)
                                : i % 3 == 1 ? Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR) : Aeth.ack(Aeth.ACK_UNLIMITED))
                        : Aeth.ack(Aeth.ACK_UNLIMITED);
                int m = 0x000400 + i;
                p.aeth(s, m);
                syn = Integer.toString(s);
                msn = Integer.toString(m);
            }
            if (op.has(HeaderType.IMM_DT)) {
                int v = 0xC0DE0000 + i;
                p.immediate(v);
                imm = hexBytes(v);
            }
            if (op.has(HeaderType.IETH)) {
                int v = 0x77660000 + i;
                p.iethRkey(v);
                ieth = hexBytes(v);
            }
            if (op.has(HeaderType.ATOMIC_ETH)) {
                long v = 0x00007F0000002000L + i * 8L;
                int k = 0x1A2C0000 + i;
                long sw = 1000L + i;
                long c = op == Opcode.RC_CMP_SWAP ? 2000L + i : 0;
                p.atomicEth(v, k, sw, c);
                va = hex(v);
                rkey = hex(k);
                swap = Long.toString(sw);
                cmp = Long.toString(c);
            }
            if (op.has(HeaderType.ATOMIC_ACK_ETH)) {
                long v = 123456789L + i;
                p.atomicAckOriginal(v);
                orig = Long.toString(v);
            }
            if (op.hasPayload()) {
                int n = op.isMiddle() || (op.isFirst() && !op.isLast()) ? 256 : 13;
                p.addSegment(ByteBuffer.wrap(TEXT), 0, n).updatePadCount();
            }
            link.inject(a, p);
            sent.add(new Expected(
                    Integer.toString(op.value()),
                    hex(qpn),
                    Integer.toString(psn),
                    ackReq ? "1" : "0",
                    va,
                    rkey,
                    len,
                    syn,
                    msn,
                    imm,
                    ieth,
                    swap,
                    cmp,
                    orig));
        }
        fabric.deterministicScheduler().runUntilIdle();
        return sent;
    }

    /**
     * A CM conversation between {@code a} and {@code b}: a connect to a port nobody listens on
     * (REQ, REJ), then a connection (REQ, REP, RTU), one SEND and its ACK, and a disconnect
     * (DREQ, DREP).
     */
    static void cmConversation(Fabric fabric, Device a, Device b) {
        RdmaCm cm = RdmaCm.of(fabric);
        CmEventChannel chA = cm.createEventChannel();
        CmEventChannel chB = cm.createEventChannel();
        CmId listen = cm.createId(chB, null, PortSpace.TCP);
        listen.bind(RdmaCm.addressOf(b, 7471));
        listen.listen(4);

        CmId refused = cm.createId(chA, null, PortSpace.TCP);
        refused.bind(RdmaCm.addressOf(a, 0));
        connect(refused, chA, RdmaCm.addressOf(b, 7000));
        expect(chA, CmEventType.REJECTED).ack();
        refused.destroyQp();
        refused.destroy();

        CmId client = cm.createId(chA, null, PortSpace.TCP);
        client.bind(RdmaCm.addressOf(a, 0));
        connect(client, chA, RdmaCm.addressOf(b, 7471));
        CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
        CmId server = req.id();
        server.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
        server.accept(ConnParam.withPrivateData("welcome".getBytes(StandardCharsets.US_ASCII)));
        req.ack();
        expect(chA, CmEventType.ESTABLISHED).ack();
        expect(chB, CmEventType.ESTABLISHED).ack();

        QueuePair qa = client.qp();
        QueuePair qb = server.qp();
        ProtectionDomain pdA = qa.pd();
        ProtectionDomain pdB = qb.pd();
        ByteBuffer bufA = ByteBuffer.allocateDirect(64);
        ByteBuffer bufB = ByteBuffer.allocateDirect(64);
        MemoryRegion mrA = pdA.registerMemory(bufA, EnumSet.of(AccessFlag.LOCAL_WRITE));
        MemoryRegion mrB = pdB.registerMemory(bufB, EnumSet.of(AccessFlag.LOCAL_WRITE));
        qb.postRecv(new io.simrdma.fabric.RecvWr().wrId(1).sge(mrB, 0, 64));
        qa.postSend(new io.simrdma.fabric.SendWr()
                .wrId(2)
                .opcode(io.simrdma.fabric.WrOpcode.SEND)
                .sge(mrA, 0, 16)
                .flag(io.simrdma.fabric.SendFlag.SIGNALED));
        awaitOne(client.sendCq());
        awaitOne(server.recvCq());

        client.disconnect();
        expect(chA, CmEventType.DISCONNECTED).ack();
        expect(chB, CmEventType.DISCONNECTED).ack();
        mrA.deregister();
        mrB.deregister();
        client.destroyQp();
        server.destroyQp();
        client.destroy();
        server.destroy();
        listen.destroy();
    }

    private static void connect(CmId id, CmEventChannel ch, java.net.InetSocketAddress to) {
        id.resolveAddr(null, to, 2000);
        expect(ch, CmEventType.ADDR_RESOLVED).ack();
        id.resolveRoute(2000);
        expect(ch, CmEventType.ROUTE_RESOLVED).ack();
        id.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
        id.connect(ConnParam.withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)));
    }

    private static CmEvent expect(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(10, TimeUnit.SECONDS);
        assertNotNull(e, "expected " + type + ", got no event");
        assertEquals(type, e.type(), "expected " + type + ", got " + e);
        return e;
    }

    private static void awaitOne(CompletionQueue cq) {
        io.simrdma.fabric.WorkCompletion[] wc = io.simrdma.fabric.WorkCompletion.array(1);
        assertEquals(true, cq.awaitCompletions(1, 10, TimeUnit.SECONDS), "no completion");
        assertEquals(1, cq.poll(wc, 1), "completion vanished");
        assertEquals(io.simrdma.fabric.WcStatus.SUCCESS, wc[0].status(), "completion " + wc[0]);
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    /** An FT_BYTES field of 4 bytes, as tshark prints it (8 hex digits, no prefix). */
    static String hexBytes(int v) {
        return String.format("%08x", v);
    }
}
