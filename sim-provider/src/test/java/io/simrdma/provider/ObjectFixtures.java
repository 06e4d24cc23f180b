package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Helpers of the IA, PZ, LMR, RMR, SRQ, endpoint and registry tests: unique fabric names, a connected
 * endpoint pair on a {@link DatPair}, small LMRs, and RDMA through an rmr_context with its completion.
 */
final class ObjectFixtures {

    private static final AtomicInteger FABRICS = new AtomicInteger();

    private ObjectFixtures() {}

    /** A fabric name no other test uses. */
    static String fabric(String prefix) {
        return prefix + "-h11-" + FABRICS.incrementAndGet();
    }

    /** The IA name of device {@code device} on a fresh fabric in {@code mode}, with extra options. */
    static String iaName(DatPair.Mode mode, String fabric, String device, String options) {
        return "sim:" + fabric + "/" + device + "?" + mode.options + (options.isEmpty() ? "" : "&" + options);
    }

    /** Two endpoints, {@code a} on side a and {@code b} on side b, connected. */
    record Connected(Endpoint a, Endpoint b) {}

    static Connected connect(DatPair p) {
        Endpoint ea = p.a.ep();
        Endpoint eb = p.b.ep();
        p.connect(ea, eb);
        return new Connected(ea, eb);
    }

    /** One LMR segment. */
    static List<LmrTriplet> seg(LocalMemoryRegion lmr, long offset, long length) {
        return List.of(new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress() + offset, length));
    }

    /** {@code length} bytes of {@code lmr} from {@code offset}, for a remote peer (through the LMR's rmr_context). */
    static RmrTriplet remote(LocalMemoryRegion lmr, long offset, long length) {
        return new RmrTriplet(lmr.rmrContext().orElseThrow(), lmr.registeredAddress() + offset, length);
    }

    /**
     * Posts an RDMA Write of {@code len} bytes of side {@code from}'s LMR at {@code localOffset} to
     * {@code remote} on {@code ep} and waits for its completion on {@code from}'s DTO EVD.
     */
    static DtoCompletionEvent rdmaWrite(
            DatPair.Side from, Endpoint ep, int localOffset, RmrTriplet remote, long cookie) {
        ep.postRdmaWrite(
                from.iov(localOffset, (int) remote.segmentLength()), cookie, remote, CompletionFlag.defaults());
        return EventTestSupport.completion(from.dto, cookie);
    }

    /** As {@link #rdmaWrite}, reading {@code remote} into {@code from}'s LMR at {@code localOffset}. */
    static DtoCompletionEvent rdmaRead(
            DatPair.Side from, Endpoint ep, int localOffset, RmrTriplet remote, long cookie) {
        ep.postRdmaRead(from.iov(localOffset, (int) remote.segmentLength()), cookie, remote, CompletionFlag.defaults());
        return EventTestSupport.completion(from.dto, cookie);
    }

    /** A copy of {@code len} bytes of {@code buf} from {@code offset}. */
    static byte[] bytes(ByteBuffer buf, int offset, int len) {
        byte[] out = new byte[len];
        buf.get(offset, out);
        return out;
    }

    /** A 4 KiB LMR of {@code side} in {@code pz} with {@code privileges}. */
    static LocalMemoryRegion lmr(DatPair.Side side, ProtectionZone pz, Set<MemoryPrivilege> privileges) {
        return side.ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocateDirect(4096)), pz, privileges);
    }

    /** Endpoint attributes with every count given and small: 4 KiB messages and RDMA, 8 DTOs and 2 segments per queue, 2 RDMA Reads each way. */
    static EpAttributes.Builder validAttributes() {
        return EpAttributes.builder()
                .maxMessageSize(4096)
                .maxRdmaSize(4096)
                .maxRecvDtos(8)
                .maxRequestDtos(8)
                .maxRecvIov(2)
                .maxRequestIov(2)
                .maxRdmaReadIn(2)
                .maxRdmaReadOut(2)
                .maxRdmaReadIov(2)
                .maxRdmaWriteIov(2);
    }
}
