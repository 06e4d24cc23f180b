package io.simrdma.provider;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionRequest;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.function.Executable;

/**
 * One live handle of every DAT handle type (IA, EP, EVD, CNO, PZ, LMR, RMR, PSP, RSP, CR, SRQ) on
 * the IA {@link #y}, with the IA {@link #x} as the peer whose connection request gives the CR.
 * Each {@link Entry} names the handle's type, the DAT_INVALID_HANDLE subtype it fails with once
 * destroyed, and a query-like call to try on it.
 */
final class HandleSet implements AutoCloseable {

    /** A handle, its type, its invalid-handle subtype and a call that uses it. */
    record Entry(String name, DatHandle handle, HandleType type, DatReturnSubtype invalidSubtype, Executable use) {
        @Override
        public String toString() {
            return name;
        }
    }

    final InterfaceAdapter x;
    final InterfaceAdapter y;
    final ProtectionZone pz;
    final EventDispatcher dto;
    final EventDispatcher conn;
    final EventDispatcher async;
    final ConsumerNotificationObject cno;
    final LocalMemoryRegion lmr;
    final RemoteMemoryRegion rmr;
    final Endpoint ep;
    final Endpoint rspEp;
    final PublicServicePoint psp;
    final ReservedServicePoint rsp;
    final ConnectionRequest cr;
    final SharedReceiveQueue srq;

    HandleSet(DatPair.Mode mode) {
        String fabric = ObjectFixtures.fabric("handles");
        x = Dat.openIa(ObjectFixtures.iaName(mode, fabric, "x", ""), 16);
        InterfaceAdapter yy = null;
        try {
            yy = Dat.openIa(ObjectFixtures.iaName(mode, fabric, "y", ""), 16);
            y = yy;
            pz = y.createPz();
            dto = y.createEvd(32, EnumSet.of(EvdFlag.DTO, EvdFlag.RMR_BIND));
            conn = y.createEvd(32, EnumSet.of(EvdFlag.CONNECTION, EvdFlag.CR));
            async = y.query().asyncEvd().orElseThrow();
            cno = y.createCno(null);
            lmr = y.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(4096)), pz, MemoryPrivilege.all());
            rmr = pz.createRmr();
            ep = y.createEndpoint(pz, dto, dto, conn, null);
            rspEp = y.createEndpoint(pz, dto, dto, conn, null);
            rsp = y.createRsp(2001, rspEp, conn);
            psp = y.createPsp(2000, conn, PspFlag.CONSUMER);
            srq = y.createSrq(pz, new SrqAttributes(8, 1, Dat.SRQ_LW_DEFAULT));
            ProtectionZone xpz = x.createPz();
            EventDispatcher xdto = x.createEvd(16, EnumSet.of(EvdFlag.DTO));
            EventDispatcher xconn = x.createEvd(16, EnumSet.of(EvdFlag.CONNECTION));
            Endpoint xep = x.createEndpoint(xpz, xdto, xdto, xconn, null);
            xep.connect(
                    y.query().iaAttributes().iaAddress(),
                    2000,
                    DatPair.WAIT,
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
            cr = DatPair.next(conn, ConnectionRequestEvent.class).cr();
        } catch (RuntimeException e) {
            closeQuietly(x);
            if (yy != null) {
                closeQuietly(yy);
            }
            throw e;
        }
    }

    /** Every handle of {@link #y}, the IA first. */
    List<Entry> entries() {
        return List.of(
                new Entry("IA", y, HandleType.IA, DatReturnSubtype.INVALID_HANDLE_IA, y::query),
                new Entry("EP", ep, HandleType.EP, DatReturnSubtype.INVALID_HANDLE_EP, ep::query),
                new Entry("EVD(DTO)", dto, HandleType.EVD, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, dto::query),
                new Entry(
                        "EVD(CONNECTION)", conn, HandleType.EVD, DatReturnSubtype.INVALID_HANDLE_EVD_CONN, conn::query),
                new Entry("CNO", cno, HandleType.CNO, DatReturnSubtype.INVALID_HANDLE_CNO, cno::query),
                new Entry("PZ", pz, HandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ, pz::query),
                new Entry("LMR", lmr, HandleType.LMR, DatReturnSubtype.INVALID_HANDLE_LMR, lmr::query),
                new Entry("RMR", rmr, HandleType.RMR, DatReturnSubtype.INVALID_HANDLE_RMR, rmr::query),
                new Entry("PSP", psp, HandleType.PSP, DatReturnSubtype.INVALID_HANDLE_PSP, psp::query),
                new Entry("RSP", rsp, HandleType.RSP, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::query),
                new Entry("CR", cr, HandleType.CR, DatReturnSubtype.INVALID_HANDLE_CR, cr::query),
                new Entry("SRQ", srq, HandleType.SRQ, DatReturnSubtype.INVALID_HANDLE_SRQ, srq::query));
    }

    /** Closes both IAs abruptly, whichever a test has not closed already. */
    @Override
    public void close() {
        try {
            closeQuietly(x);
        } finally {
            closeQuietly(y);
        }
    }

    /** Abrupt close, ignoring only "already closed". */
    static void closeQuietly(InterfaceAdapter ia) {
        try {
            ia.close(CloseFlag.ABRUPT);
        } catch (DatException e) {
            if (e.type() != DatReturnType.INVALID_HANDLE) {
                throw e;
            }
        }
    }
}
