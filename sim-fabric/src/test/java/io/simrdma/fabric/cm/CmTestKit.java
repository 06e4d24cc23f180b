package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.DeviceConfig;
import io.simrdma.fabric.Fabric;
import io.simrdma.fabric.QpCaps;
import io.simrdma.fabric.QpInitAttr;
import io.simrdma.fabric.VerbsException;
import org.junit.jupiter.api.function.Executable;

/**
 * Two devices "a" (active side, channel {@link #chA}) and "b" (passive side, channel
 * {@link #chB}) on a deterministic or threaded fabric, with the connection manager, and the steps
 * the CM tests repeat: a listening id, a routed id, a full connection. Helper of CmApiTest,
 * CmEventsTest and CmCreateEpTest.
 */
final class CmTestKit implements AutoCloseable {

    static final long WAIT_SECONDS = 10;

    final boolean threaded;
    final Fabric fabric;
    final Device a;
    final Device b;
    final RdmaCm cm;
    final CmEventChannel chA;
    final CmEventChannel chB;

    private CmTestKit(boolean threaded, long seed, CmConfig config, DeviceConfig ca, DeviceConfig cb) {
        this.threaded = threaded;
        this.fabric = threaded ? Fabric.threaded() : Fabric.deterministic(seed);
        this.a = fabric.createDevice(ca);
        this.b = fabric.createDevice(cb);
        this.cm = RdmaCm.of(fabric, config);
        this.chA = cm.createEventChannel();
        this.chB = cm.createEventChannel();
    }

    static CmTestKit of(boolean threaded) {
        return of(threaded, CmConfig.defaults());
    }

    static CmTestKit of(boolean threaded, CmConfig config) {
        return of(threaded, config, DeviceConfig.named("a"), DeviceConfig.named("b"));
    }

    static CmTestKit of(boolean threaded, CmConfig config, DeviceConfig ca, DeviceConfig cb) {
        return new CmTestKit(threaded, 1309, config, ca, cb);
    }

    /** Default configuration, devices "a" and "b"; {@code seed} seeds the deterministic fabric. */
    static CmTestKit seeded(boolean threaded, long seed) {
        return new CmTestKit(threaded, seed, CmConfig.defaults(), DeviceConfig.named("a"), DeviceConfig.named("b"));
    }

    /** A small CM configuration: response timeout 2^10 x 4.096 us (4.19 ms), 3 retries, 1 ms timewait. */
    static CmConfig fastConfig() {
        return CmConfig.defaults().withResponseTimeout(10, 3).withTimewaitNanos(1_000_000L);
    }

    static QpInitAttr qpAttr() {
        return new QpInitAttr().caps(QpCaps.defaults());
    }

    /** The next event of {@code ch}, which must be of {@code type} (not acknowledged). */
    static CmEvent expect(CmEventChannel ch, CmEventType type) {
        return CmSteps.next(ch, type, WAIT_SECONDS);
    }

    /** {@link #expect} and acknowledge. */
    static CmEvent expectAcked(CmEventChannel ch, CmEventType type) {
        return CmSteps.nextAcked(ch, type, WAIT_SECONDS);
    }

    static VerbsException assertErrno(io.simrdma.fabric.Errno errno, Executable call) {
        VerbsException e = assertThrows(VerbsException.class, call);
        assertEquals(errno, e.errno(), e::getMessage);
        return e;
    }

    static VerbsException assertErrno(io.simrdma.fabric.Errno errno, Executable call, String why) {
        VerbsException e = assertThrows(VerbsException.class, call, why);
        assertEquals(errno, e.errno(), () -> why + ": " + e.getMessage());
        return e;
    }

    /** Deterministic only: runs the fabric until nothing is left and checks that {@code ch} got no event. */
    void assertNoEvent(CmEventChannel ch) {
        assertTrue(!threaded, "assertNoEvent is for the deterministic fabric");
        fabric.deterministicScheduler().runUntilIdle();
        CmEvent e = ch.pollEvent();
        assertNull(e, () -> "expected no event, got " + e);
    }

    long now() {
        return fabric.now();
    }

    /** An id on chB bound to b:port, listening. */
    CmId listener(PortSpace ps, int port, int backlog) {
        CmId l = cm.createId(chB, "listener", ps);
        l.bind(RdmaCm.addressOf(b, port));
        l.listen(backlog);
        return l;
    }

    /** An id on chA bound to device a, with address and route to b:port resolved (events acknowledged). */
    CmId routed(PortSpace ps, int port) {
        CmId id = cm.createId(chA, "client", ps);
        id.bind(RdmaCm.addressOf(a, 0));
        CmSteps.resolve(id, null, RdmaCm.addressOf(b, port), 1000, WAIT_SECONDS);
        return id;
    }

    /** A {@link #routed} id with its QP (rdma_create_qp(3)), ready to connect. */
    CmId requester(PortSpace ps, int port) {
        CmId id = routed(ps, port);
        id.createQp(null, qpAttr());
        return id;
    }

    /** A {@link #requester} that has called rdma_connect(3) with {@code param}. */
    CmId connecting(PortSpace ps, int port, ConnParam param) {
        CmId id = requester(ps, port);
        id.connect(param);
        return id;
    }

    /** The passive side of a connection request: gives the request's id a QP and accepts with {@code param}. */
    static CmId accept(CmEvent request, ConnParam param) {
        CmId id = request.id();
        id.createQp(null, qpAttr());
        id.accept(param);
        return id;
    }

    /** A connection set up by {@link #connect}; its events are acknowledged (their data stays readable). */
    record Conn(CmId client, CmId server, CmEvent request, CmEvent clientEstablished, CmEvent serverEstablished) {}

    /**
     * Connects a routed id of a (with a QP) to the listener on b:port (which must exist): the
     * passive side creates a QP and accepts with {@code accept}.
     */
    Conn connect(PortSpace ps, int port, ConnParam connect, ConnParam accept) {
        CmId client = connecting(ps, port, connect);
        CmEvent req = expect(chB, CmEventType.CONNECT_REQUEST);
        CmId server = accept(req, accept);
        req.ack();
        CmEvent ce = expectAcked(chA, CmEventType.ESTABLISHED);
        CmEvent se = expectAcked(chB, CmEventType.ESTABLISHED);
        return new Conn(client, server, req, ce, se);
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i * 7 + 1);
        }
        return b;
    }

    @Override
    public void close() {
        fabric.close();
    }
}
