package io.simrdma.fabric.tcp;

import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.WcStatus;
import io.simrdma.fabric.WorkCompletion;
import io.simrdma.fabric.cm.CmConfig;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventChannel;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.ConnParam;
import io.simrdma.fabric.cm.PortSpace;
import io.simrdma.fabric.cm.RdmaCm;
import java.util.concurrent.TimeUnit;

/**
 * The second JVM of {@link TcpTwoJvmTest}: starts a TCP node on loopback, prints
 * "LISTENING host:port" on stdout, accepts one connection through the CM on port
 * {@link #PORT}, and serves as the passive side: a posted receive for the SEND, its buffer for
 * WRITE, READ and the atomics (address and R_Key in the accept private data). After the peer
 * disconnects it checks what landed in its memory, prints "OK" (exit 0) or "FAIL reason" (exit 2).
 */
public final class TcpPeerMain {

    static final int PORT = 7471;
    static final int SEND_LEN = 10_000;
    static final long SEND_SEED = 71;
    static final int WRITE_OFF = 16_384;
    static final int WRITE_LEN = 12_000;
    static final long WRITE_SEED = 72;
    static final int ATOMIC_OFF = 60_000;
    static final long ATOMIC_START = 1000;
    static final long ATOMIC_ADD = 5;
    static final long ATOMIC_SWAP = 77;
    /**
     * Both JVMs: a CM response timeout of 268 ms with 15 retries covers a cold JVM accepting
     * slowly; an ACK timeout of 537 ms (exponent 17) with 7 retries rides out a 4 s stall of a JVM.
     */
    static final CmConfig CM = CmConfig.defaults().withAckTimeout(17);

    private static final long WAIT_SECONDS = 60;

    private TcpPeerMain() {}

    public static void main(String[] args) {
        String result;
        try (Fabric f = Fabric.builder()
                .name(TcpPair.FABRIC)
                .threaded()
                .seed(ProcessHandle.current().pid())
                .build()) {
            result = serve(f);
        } catch (RuntimeException | AssertionError e) {
            result = "FAIL " + e;
            e.printStackTrace();
        }
        System.out.println(result);
        System.out.flush();
        System.exit(result.equals("OK") ? 0 : 2);
    }

    private static String serve(Fabric f) {
        TcpNode node = TcpNode.start(f, TcpConfig.builder("child").build());
        RdmaCm cm = RdmaCm.of(f, CM);
        CmEventChannel ch = cm.createEventChannel();
        CmId listen = cm.createId(ch, null, PortSpace.TCP);
        listen.bind(RdmaCm.addressOf(node.device(), PORT));
        listen.listen(1);
        System.out.println("LISTENING " + node.address());
        System.out.flush();

        CmEvent req = next(ch, CmEventType.CONNECT_REQUEST);
        RcEnd end = new RcEnd(req.id()).peer(req.privateData());
        end.buf.putLong(ATOMIC_OFF, ATOMIC_START);
        end.postRecv(1, 0, SEND_LEN);
        req.id().accept(ConnParam.withPrivateData(end.keyData()));
        req.ack();
        next(ch, CmEventType.ESTABLISHED).ack();

        WorkCompletion recv = end.next(WAIT_SECONDS, TimeUnit.SECONDS);
        if (recv == null || recv.status() != WcStatus.SUCCESS || recv.byteLen() != SEND_LEN) {
            return "FAIL receive " + recv;
        }
        next(ch, CmEventType.DISCONNECTED).ack();
        int bad = RcEnd.mismatch(end.buf, 0, SEND_LEN, SEND_SEED);
        if (bad >= 0) {
            return "FAIL SEND byte " + bad;
        }
        bad = RcEnd.mismatch(end.buf, WRITE_OFF, WRITE_LEN, WRITE_SEED);
        if (bad >= 0) {
            return "FAIL WRITE byte " + bad;
        }
        long atomic = end.buf.getLong(ATOMIC_OFF);
        if (atomic != ATOMIC_SWAP) {
            return "FAIL atomic value " + atomic;
        }
        return "OK";
    }

    private static CmEvent next(CmEventChannel ch, CmEventType type) {
        CmEvent e = ch.getEvent(WAIT_SECONDS, TimeUnit.SECONDS);
        if (e == null || e.type() != type) {
            throw new IllegalStateException("expected " + type + ", got " + e);
        }
        return e;
    }
}
