package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EndpointState;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EpParams;
import io.simrdma.dat.EpRecvInfo;
import io.simrdma.dat.EpStatus;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.QueuePair;
import java.net.SocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * An Endpoint (dat_ep_create(3DAT), dat_ep_create_with_srq(3DAT)): a verbs RC queue pair plus,
 * while it connects or is connected, a connection-manager id, with the DAT endpoint state machine
 * of {@link EpStateTable} on top.
 *
 * <p>This class is the handle: it holds the endpoint's {@link #state} and hands each call of the
 * {@link Endpoint} API to the part with that concern, each of which consults {@link EpStateTable}:
 * <ul>
 *   <li>{@link EpConfiguration}: PZ, EVDs, attributes and the QP built from them; dat_ep_modify;</li>
 *   <li>{@link EpPosting}: posts and their completions;</li>
 *   <li>{@link EpConnection}: connect, accept, disconnect and the connection events;</li>
 *   <li>{@link EpWatermarks}: the receive-buffer watermarks.</li>
 * </ul>
 * dat_ep_reset(3DAT) and dat_ep_free(3DAT) concern every part, so they are here. {@link SimIa}
 * creates consumer endpoints and {@link SimPsp} provider endpoints.
 *
 * <p>Threading: posts and queries run on the caller's thread; every state change runs on the
 * device's executor, where connection-manager events arrive too.
 *
 * <p>Thread safety: thread-safe.
 */
final class SimEp extends SimHandle implements Endpoint {

    final int id;
    /** A provider endpoint of a PSP (dat_psp_create(3DAT) with DAT_PSP_PROVIDER_FLAG). */
    final boolean providerCreated;
    /** The DAT endpoint state ({@link EpStateTable}); changed on the device executor only. */
    volatile EndpointState state;

    final SimSrq srq;

    /** PZ, EVDs, attributes and the QP; dat_ep_modify. */
    final EpConfiguration config;
    /** Posts and their completions. */
    final EpPosting posting;
    /** dat_ep_set_watermark(3DAT). */
    final EpWatermarks watermarks;
    /** Connect, accept, disconnect and their events. */
    final EpConnection connection;

    private SimEp(
            SimIa ia,
            SimPz pz,
            SimEvd recvEvd,
            SimEvd requestEvd,
            SimEvd connectEvd,
            SimSrq srq,
            EpAttributes attrs,
            boolean providerCreated) {
        super(ia, HandleType.EP);
        this.id = ia.newId();
        this.srq = srq;
        this.providerCreated = providerCreated;
        this.state = providerCreated ? EndpointState.TENTATIVE_CONNECTION_PENDING : EndpointState.UNCONNECTED;
        this.config = new EpConfiguration(this, pz, recvEvd, requestEvd, connectEvd, attrs);
        this.posting = new EpPosting(this, attrs);
        this.watermarks = new EpWatermarks(this, attrs);
        this.connection = new EpConnection(this);
    }

    /**
     * Moves the endpoint to {@code next} and reports the change to the fabric's trace listeners
     * (a ladder shows it on the endpoint's column). Device executor, as every state change.
     */
    void state(EndpointState next) {
        EndpointState was = state;
        state = next;
        if (next != was && next != null && was != null) {
            ia.fabric.traceStateChange(ia.device, "EP " + id, was.name(), next.name());
        }
    }

    /** dat_ep_create(3DAT) and dat_ep_create_with_srq(3DAT), and the provider's EPs of a PSP. */
    static SimEp create(
            SimIa ia,
            ProtectionZone pzHandle,
            EventDispatcher recv,
            EventDispatcher request,
            EventDispatcher connect,
            SimSrq srq,
            EpAttributes attributes,
            boolean providerCreated) {
        SimPz z =
                providerCreated ? null : SimHandle.check(pzHandle, SimPz.class, ia, DatReturnSubtype.INVALID_HANDLE_PZ);
        SimEvd r = EpConfiguration.evd(ia, recv, EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV);
        SimEvd q = EpConfiguration.evd(ia, request, EvdFlag.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST);
        SimEvd c = EpConfiguration.evd(ia, connect, EvdFlag.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN);
        EpAttributes a = attributes != null ? attributes : EpAttributeRules.defaults(ia);
        EpAttributeRules.validate(ia, a, srq);
        if (srq != null && z != null && srq.pz != z) {
            // dat_ep_create_with_srq(3DAT): a different PZ needs srq_ep_pz_difference_supported, which is false.
            throw DatException.invalidParameter(
                    "the endpoint's PZ must be the SRQ's (srq_ep_pz_difference_supported is false)");
        }
        EpConfiguration.checkStreams(r, true, a.recvCompletionFlags(), null);
        EpConfiguration.checkStreams(q, false, a.requestCompletionFlags(), EpConfiguration.ownRecvStream(r, q, a));
        if (ia.handleCount(SimEp.class) >= ia.attributes().maxEps()) {
            throw insufficient(
                    DatReturnSubtype.RESOURCE_TEP, "max_eps (" + ia.attributes().maxEps() + ") reached");
        }
        SimEp ep = new SimEp(ia, z, r, q, c, srq, a, providerCreated);
        ep.config.attach();
        ia.router.registerEp(ep);
        try {
            ia.run(ep.config::createQpIfReady);
        } catch (RuntimeException e) {
            ep.config.detach();
            ia.router.unregisterEp(ep);
            throw e;
        }
        return ep;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_EP;
    }

    // ------------------------------------------------------------------ posting (EpPosting)

    @Override
    public void postSend(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        posting.postSend(localIov, userCookie, completionFlags);
    }

    @Override
    public void postRdmaRead(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags) {
        posting.postRdmaRead(localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public void postRdmaWrite(
            List<LmrTriplet> localIov, long userCookie, RmrTriplet remoteBuffer, Set<CompletionFlag> completionFlags) {
        posting.postRdmaWrite(localIov, userCookie, remoteBuffer, completionFlags);
    }

    @Override
    public void postRecv(List<LmrTriplet> localIov, long userCookie, Set<CompletionFlag> completionFlags) {
        posting.postRecv(localIov, userCookie, completionFlags);
    }

    // ------------------------------------------------------------------ connection (EpConnection)

    @Override
    public void connect(
            SocketAddress remoteIaAddress,
            long remoteConnQual,
            Timeout timeout,
            byte[] privateData,
            Qos qos,
            Set<ConnectFlag> connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeout, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, Timeout timeout, byte[] privateData, Qos qos) {
        connection.dupConnect(dupEp, timeout, privateData, qos);
    }

    @Override
    public void disconnect(CloseFlag flag) {
        connection.disconnect(flag);
    }

    // ------------------------------------------------------------------ reset, free

    @Override
    public void reset() {
        checkHandle();
        ia.run(() -> {
            EpStateTable.Rule r = EpStateTable.check(state, EpOp.RESET);
            if (r.kind() == EpStateTable.Kind.NOOP) {
                return;
            }
            connection.releaseCmId();
            config.resetQp();
            posting.forgetOutstanding();
            connection.forgetPeer();
            // the soft watermark stays reported: dat_ep_set_watermark(3DAT) "no new asynchronous events for the soft
            // high watermark is generated until the EP is again set for the soft high watermark"
            state(r.next());
        });
    }

    @Override
    public void free() {
        checkHandle();
        ia.run(() -> {
            checkHandle();
            EpStateTable.check(state, EpOp.FREE);
            destroy();
        });
        ia.forget(this);
    }

    /** Releases the endpoint: aborts its connection, destroys its QP, leaves its EVDs. Device executor. */
    @Override
    void destroy() {
        if (freed) {
            return;
        }
        ia.run(() -> {
            connection.abort();
            config.destroyQp();
            freed = true;
            config.detach();
            ia.router.unregisterEp(this);
        });
    }

    // ------------------------------------------------------------------ modify, query, status

    @Override
    public void modify(EpModify m) {
        config.modify(m);
    }

    @Override
    public EpParams query() {
        checkHandle();
        EndpointState s = state;
        long lq = connection.localPortQual();
        long rq = connection.remotePortQual();
        return new EpParams(
                ia,
                s,
                Optional.of(ia.address()),
                lq >= 0 ? OptionalLong.of(lq) : OptionalLong.empty(),
                Optional.ofNullable(connection.remoteAddress()),
                rq >= 0 ? OptionalLong.of(rq) : OptionalLong.empty(),
                Optional.ofNullable(config.pz()),
                Optional.ofNullable(config.recvEvd()),
                Optional.ofNullable(config.requestEvd()),
                Optional.ofNullable(config.connectEvd()),
                Optional.ofNullable(srq),
                config.attrs());
    }

    @Override
    public EpStatus status() {
        checkHandle();
        QueuePair q = config.qp();
        boolean recvIdle = posting.recvIdle();
        return new EpStatus(state, recvIdle, q == null || q.sendQueueDepth() == 0);
    }

    /**
     * dat_ep_recv_query(3DAT): receives posted to the endpoint and not yet completed; with an SRQ,
     * the buffers the endpoint holds are not tracked per endpoint (DAT_VALUE_UNKNOWN).
     */
    @Override
    public EpRecvInfo recvQuery() {
        checkHandle();
        return posting.recvQuery();
    }

    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        checkHandle();
        watermarks.set(softHighWatermark, hardHighWatermark);
    }

    @Override
    public String toString() {
        return "EP#" + id + "[" + state + "]";
    }
}
