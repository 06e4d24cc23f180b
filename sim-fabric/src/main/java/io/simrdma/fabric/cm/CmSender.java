package io.simrdma.fabric.cm;

import io.simrdma.fabric.Device;
import io.simrdma.fabric.sched.EngineTimer;
import io.simrdma.fabric.wire.Gid;
import java.util.function.Consumer;

/**
 * Sends one device's IB CM messages as management datagrams to the peer's QP1 (the GSI), and
 * retransmits those that wait for an answer. A REQ, REP or DREQ is sent "tracked": it is kept as
 * the connection's last MAD and resent after each CM response timeout (4.096 us x
 * 2^cmResponseTimeout, IBA 12.7.34) up to maxCmRetries times; when the retries are used up the
 * state machine's timeout handler decides what happens. RTU, REJ and DREP are sent once and are
 * only repeated in answer to a duplicate of what they answered; an MRA answers a resent REQ the
 * application has not accepted yet and stretches the requester's wait. It also numbers the device's
 * transactions (IBA 13.4.6.4: unique per requester).
 *
 * <p>Thread safety: not thread-safe; confined to the device executor, where the connection
 * timers it arms also fire.
 *
 * <p>Who calls it: the device's {@link ConnectionMachine}, which also owns it.
 */
final class CmSender {

    private final Device device;
    private final CmConfig config;
    /** Called on the device executor when a tracked message's response timeout or the timewait expires. */
    private final Consumer<CmId> onTimeout;

    private long tidCounter;

    CmSender(Device device, CmConfig config, Consumer<CmId> onTimeout) {
        this.device = device;
        this.config = config;
        this.onTimeout = onTimeout;
    }

    /** A new transaction ID: the device's GUID in the upper half, a counter below. */
    long newTid() {
        return (device.guid() << 32) ^ (++tidCounter);
    }

    /** Sends an encoded CM message to QP1 of {@code to}. */
    void send(Gid to, byte[] mad) {
        device.sendMad(to, Device.GSI_QPN, mad);
    }

    /**
     * Sends {@code m} to the peer of {@code id} and keeps it for retransmission: the connection's
     * retries are reset and its timer, made on first use, runs for one CM response timeout.
     */
    void sendTracked(CmId id, CmMessage m) {
        Connection c = id.connection;
        byte[] mad = m.encode();
        c.lastMad = mad;
        c.retriesLeft = config.maxCmRetries();
        c.retryTimeoutNanos = config.responseTimeoutNanos();
        if (c.timer == null) {
            c.timer = new EngineTimer(device.executor(), "cm-" + id, () -> onTimeout.accept(id));
        }
        send(c.remoteGid, mad);
        c.timer.start(c.retryTimeoutNanos);
    }

    /**
     * The peer acknowledged the tracked message of {@code id} with an MRA whose service timeout is
     * {@code serviceTimeout} (IBA 12.6.6): from now on the message waits that long plus one
     * response timeout (the kernel's IB CM adds the path's packet lifetime) before each resend.
     * The retries left are not renewed, so a peer that never answers still ends the attempt.
     */
    void extendTimeout(CmId id, int serviceTimeout) {
        Connection c = id.connection;
        c.retryTimeoutNanos = (4096L << serviceTimeout) + config.responseTimeoutNanos();
        c.timer.start(c.retryTimeoutNanos);
    }

    /**
     * The response timeout of the tracked message of {@code id} expired: resends it and restarts
     * the timer if retries are left.
     *
     * @return false if the retries are used up (nothing was sent)
     */
    boolean retransmit(CmId id) {
        Connection c = id.connection;
        if (c.retriesLeft > 0) {
            c.retriesLeft--;
            send(c.remoteGid, c.lastMad);
            c.timer.start(c.retryTimeoutNanos);
            return true;
        }
        return false;
    }

    /**
     * Sends a SIDR REP (IBA 12.11.2) answering request {@code requestId}: {@code status} 0
     * (success) with the QP number and Q_Key, or a failure status.
     *
     * @return the encoded SIDR REP, kept as the answer to a repeated SIDR REQ
     */
    byte[] sendSidrRep(
            Gid to, int requestId, long tid, long serviceId, int status, int qpn, int qkey, byte[] privateData) {
        CmMessage rep = CmMessage.of(CmMessage.Type.SIDR_REP);
        rep.transactionId = tid;
        rep.localCommId = requestId;
        rep.serviceId = serviceId;
        rep.sidrStatus = status;
        rep.localQpn = qpn;
        rep.qkey = qkey;
        rep.privateData = privateData;
        byte[] mad = rep.encode();
        send(to, mad);
        return mad;
    }

    /** Sends the RTU of connection {@code c}, kept as its last MAD to answer a repeated REP. */
    void sendRtu(Connection c) {
        CmMessage rtu = CmMessage.of(CmMessage.Type.RTU);
        rtu.transactionId = c.transactionId;
        rtu.localCommId = c.localCommId;
        rtu.remoteCommId = c.remoteCommId;
        byte[] mad = rtu.encode();
        c.lastMad = mad;
        send(c.remoteGid, mad);
    }

    /**
     * Sends a REJ of the message {@code messageRejected} ({@link CmMessage#MSG_REQ} or
     * {@link CmMessage#MSG_REP}) with {@code reason} and {@code privateData} (none if null).
     *
     * @return the encoded REJ, for a caller that keeps it as the answer to a duplicate
     */
    byte[] sendRej(
            Gid to,
            int localCommId,
            int remoteCommId,
            long tid,
            int messageRejected,
            RejectReason reason,
            byte[] privateData) {
        CmMessage rej = CmMessage.of(CmMessage.Type.REJ);
        rej.transactionId = tid;
        rej.localCommId = localCommId;
        rej.remoteCommId = remoteCommId;
        rej.messageRejected = messageRejected;
        rej.reason = reason.code();
        rej.privateData = privateData == null ? new byte[0] : privateData;
        byte[] mad = rej.encode();
        send(to, mad);
        return mad;
    }

    /**
     * Sends an MRA (IBA 12.6.6) acknowledging the REQ of connection {@code c}, received and
     * reported to the application, which has not answered it yet: the requester waits
     * {@code serviceTimeout} (4.096 us x 2^value) longer before it resends the REQ. Not kept: a
     * later resend of the REQ gets a new one.
     */
    void sendMra(Gid to, Connection c, int serviceTimeout) {
        CmMessage mra = CmMessage.of(CmMessage.Type.MRA);
        mra.transactionId = c.transactionId;
        mra.localCommId = c.localCommId;
        mra.remoteCommId = c.remoteCommId;
        mra.messageRejected = CmMessage.MSG_REQ;
        mra.serviceTimeout = serviceTimeout;
        send(to, mra.encode());
    }

    /**
     * Sends a DREP answering the DREQ with transaction {@code tid}.
     *
     * @return the encoded DREP, for a caller that keeps it as the answer to a repeated DREQ
     */
    byte[] sendDrep(Gid to, int localCommId, int remoteCommId, long tid) {
        CmMessage drep = CmMessage.of(CmMessage.Type.DREP);
        drep.transactionId = tid;
        drep.localCommId = localCommId;
        drep.remoteCommId = remoteCommId;
        byte[] mad = drep.encode();
        send(to, mad);
        return mad;
    }
}
