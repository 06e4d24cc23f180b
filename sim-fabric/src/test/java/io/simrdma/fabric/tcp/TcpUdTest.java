package io.simrdma.fabric.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.AccessFlag;
import io.simrdma.fabric.AddressHandle;
import io.simrdma.fabric.MemoryRegion;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.RecvWr;
import io.simrdma.fabric.SendFlag;
import io.simrdma.fabric.SendWr;
import io.simrdma.fabric.WcFlag;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.WrOpcode;
import io.simrdma.fabric.cm.AddrInfo;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.CmSteps;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import io.simrdma.fabric.cm.UdParam;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * UD over a TCP link: rdma_cm's UDP port space resolves the remote QP with SIDR REQ/REP carried as
 * MADs between two TCP nodes, then a UD SEND with immediate (BTH, DETH, ImmDt in the packet codec)
 * reaches the remote QP with its GRH, source QP and immediate data.
 */
class TcpUdTest {

    private static final int PORT = 7480;

    @Test
    @DisplayName(
            "rdma_connect(3) RDMA_PS_UDP over TCP: SIDR REQ/REP between nodes, then a datagram with DETH and immediate data arrives with GRH, src_qp and imm")
    void shouldResolveAndSendDatagramWhenNodesAreOverTcp() {
        try (TcpPair p = new TcpPair(false)) {
            CmEventChannel chB = p.cmB.createEventChannel();
            CmId listen = p.cmB.createId(chB, null, PortSpace.UDP);
            listen.bind(RdmaCm.addressOf(p.b.device(), PORT));
            listen.listen(4);

            CmEventChannel chA = p.cmA.createEventChannel();
            AddrInfo ai = p.cmA.getAddrInfo(p.b.address(), String.valueOf(PORT), AddrInfo.active())
                    .get(0);
            CmId client = p.cmA.createId(chA, null, PortSpace.UDP);
            CmSteps.resolve(client, null, ai.dstAddr(), 2000, TcpPair.WAIT_SECONDS);
            client.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            client.connect(ConnParam.withPrivateData("over tcp".getBytes(StandardCharsets.US_ASCII)));

            CmEvent req = TcpPair.expect(chB, CmEventType.CONNECT_REQUEST);
            assertEquals("over tcp", new String(req.privateData(), 0, 8, StandardCharsets.US_ASCII));
            CmId server = req.id();
            server.createQp(null, new QpInitAttr().caps(QpCaps.defaults()));
            ByteBuffer rb = ByteBuffer.allocate(256);
            MemoryRegion rmr = server.qp().pd().registerMemory(rb, EnumSet.of(AccessFlag.LOCAL_WRITE));
            server.qp().postRecv(new RecvWr().wrId(7).sge(rmr, 0, 256));
            server.accept(null);

            CmEvent est = TcpPair.expect(chA, CmEventType.ESTABLISHED);
            UdParam ud = est.ud();
            assertNotNull(ud);
            assertEquals(server.qp().qpNum(), ud.qpNum());
            assertEquals(CmId.RDMA_UDP_QKEY, ud.qkey());

            AddressHandle ah = client.qp().pd().createAh(ud.ahAttr());
            ByteBuffer sb = ByteBuffer.allocate(64);
            byte[] msg = "datagram over TCP".getBytes(StandardCharsets.US_ASCII);
            sb.put(0, msg);
            MemoryRegion smr = client.qp().pd().registerMemory(sb, EnumSet.noneOf(AccessFlag.class));
            client.qp()
                    .postSend(new SendWr()
                            .wrId(1)
                            .opcode(WrOpcode.SEND_WITH_IMM)
                            .immData(0x5EED)
                            .sge(smr, 0, msg.length)
                            .ud(ah, ud.qpNum(), ud.qkey())
                            .flag(SendFlag.SIGNALED));

            WorkCompletion[] wc = WorkCompletion.array(1);
            assertTrue(client.sendCq().awaitCompletions(1, TcpPair.WAIT_SECONDS, TimeUnit.SECONDS), "send completion");
            assertEquals(1, client.sendCq().poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
            assertTrue(
                    server.recvCq().awaitCompletions(1, TcpPair.WAIT_SECONDS, TimeUnit.SECONDS), "receive completion");
            assertEquals(1, server.recvCq().poll(wc, 1));
            assertEquals(WcStatus.SUCCESS, wc[0].status(), wc[0].toString());
            assertEquals(7, wc[0].wrId());
            assertEquals(AddressHandle.GRH_LENGTH + msg.length, wc[0].byteLen());
            assertEquals(client.qp().qpNum(), wc[0].srcQp(), "DETH source QP crossed the wire");
            assertTrue(wc[0].hasFlag(WcFlag.GRH) && wc[0].hasFlag(WcFlag.WITH_IMM));
            assertEquals(0x5EED, wc[0].immData());
            byte[] got = new byte[msg.length];
            rb.get(AddressHandle.GRH_LENGTH, got);
            assertArrayEquals(msg, got);
            byte[] sgid = new byte[16];
            rb.get(8, sgid);
            assertArrayEquals(p.a.device().gid().toBytes(), sgid, "the GRH's SGID is the sending node's");
            ah.destroy();
            smr.deregister();
            rmr.deregister();
            client.destroyEp();
            server.destroyEp();
            listen.destroy();
        }
    }
}
