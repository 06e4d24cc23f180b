package io.simrdma.provider;

import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.ServicePoint;
import io.simrdma.fabric.Errno;
import io.simrdma.fabric.VerbsException;
import io.simrdma.fabric.cm.CmEvent;
import io.simrdma.fabric.cm.CmEventType;
import io.simrdma.fabric.cm.CmId;
import io.simrdma.fabric.cm.PortSpace;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Public and a Reserved Service Point share: a listening connection-manager id on the
 * IA's address and the connection qualifier (an IB service id on the IB port space), the EVD its
 * connection requests go to, and the turning of an arriving request into a {@link SimCr} and a
 * DAT_CONNECTION_REQUEST_EVENT.
 *
 * <p>Backlog: there is none besides the EVD (dat_psp_create(3DAT)); a request that finds the EVD
 * full is refused by the provider, as if nobody listened, and the requester sees
 * NON_PEER_REJECTED.
 *
 * <p>Threading: arrivals run on the device's executor; creation and free hop onto it.
 *
 * <p>Thread safety: thread-safe.
 */
abstract class SimServicePoint extends SimHandle implements ServicePoint {

    private static final Logger LOG = LoggerFactory.getLogger(SimServicePoint.class);

    final SimEvd evd;
    private volatile long connQual;
    private CmId listenId;

    SimServicePoint(SimIa ia, HandleType type, SimEvd evd) {
        super(ia, type);
        this.evd = evd;
    }

    /** The EVD of a service point: a live EVD of the IA with the connection request stream. */
    static SimEvd checkEvd(SimIa ia, EventDispatcher evd) {
        SimEvd e = SimHandle.check(evd, SimEvd.class, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        e.checkStream(EvdFlag.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        return e;
    }

    static void checkQual(long connQual) {
        if (connQual < 1 || connQual > 0xFFFF) {
            throw DatException.invalidParameter("connection qualifier " + connQual
                    + " not in 1..65535 (an IB service id on the RDMA_PS_IB port space)");
        }
    }

    @Override
    public long connQual() {
        checkHandle();
        return connQual;
    }

    long qual() {
        return connQual;
    }

    /**
     * Starts listening on {@code qual} (0: a free qualifier the connection manager picks).
     * Device executor.
     *
     * @throws DatException DAT_CONN_QUAL_IN_USE, or DAT_CONN_QUAL_UNAVAILABLE when {@code qual} is 0
     */
    void listen(long qual) {
        CmId id = ia.cm.createId(ia.cmChannel(), this, PortSpace.IB);
        try {
            id.bind(new InetSocketAddress(ia.cmAddress().getAddress(), (int) qual));
            id.listen(0);
        } catch (VerbsException e) {
            id.destroy();
            if (e.errno() == Errno.EADDRINUSE) {
                throw new DatException(
                        qual == 0 ? DatReturnType.CONN_QUAL_UNAVAILABLE : DatReturnType.CONN_QUAL_IN_USE,
                        qual == 0 ? "no connection qualifier is free" : "connection qualifier " + qual + " is in use");
            }
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.NO_SUBTYPE, e.getMessage());
        }
        listenId = id;
        connQual = id.srcPort();
        ia.router.own(id, this);
        evd.addUser();
        ia.registerServicePoint(this);
    }

    /** Stops listening: later requests are rejected as if nobody listened. Device executor. */
    void stopListening() {
        CmId id = listenId;
        if (id == null) {
            return;
        }
        listenId = null;
        ia.router.disown(id);
        ia.unregisterServicePoint(this);
        evd.removeUser();
        try {
            id.destroy();
        } catch (VerbsException e) {
            LOG.debug("{}: listening id not destroyed: {}", this, e.getMessage());
        }
    }

    /** dat_psp_free(3DAT), dat_rsp_free(3DAT). */
    @Override
    public final void free() {
        checkHandle();
        ia.run(() -> {
            checkHandle();
            destroy();
        });
        ia.forget(this);
    }

    /** Stops listening and releases what the service point holds; idempotent. Any thread. */
    @Override
    final void destroy() {
        ia.run(() -> {
            if (!freed) {
                freed = true;
                stopListening();
                stopped();
            }
        });
    }

    /**
     * The service point stopped listening for good: what it releases besides its listening id (a
     * PSP nothing: requests already delivered and their endpoints stay, dat_psp_free(3DAT)). Device
     * executor.
     */
    void stopped() {}

    /** A connection-manager event of the listening id. Device executor. */
    void onCmEvent(CmEvent e) {
        if (e.type() != CmEventType.CONNECT_REQUEST || e.listenId() != listenId) {
            return;
        }
        CmId child = e.id();
        PrivateData.Decoded pd = PrivateData.decode(e.param().privateData());
        SimCr cr = new SimCr(ia, child, e.param(), pd.data(), pd.portQual(), connQual);
        ia.router.own(child, cr);
        if (freed || !arrived(cr)) {
            cr.refuse();
        }
    }

    /**
     * Offers a request to this service point (on arrival or by dat_cr_handoff(3DAT)). Device
     * executor.
     *
     * @return false if this service point cannot take it (the caller refuses the request)
     */
    abstract boolean arrived(SimCr cr);

    /** Queues the CR's event; false if the EVD is full (the backlog is the EVD's queue). */
    final boolean deliver(SimCr cr) {
        ConnectionRequestEvent ev = new ConnectionRequestEvent(evd, Optional.of(this), ia.address(), connQual, cr);
        if (!evd.offer(ev)) {
            LOG.debug("{}: EVD full, connection request refused", this);
            return false;
        }
        ia.remember(cr);
        return true;
    }
}
