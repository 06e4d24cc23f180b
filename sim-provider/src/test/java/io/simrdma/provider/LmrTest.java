package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static io.simrdma.provider.ObjectFixtures.rdmaRead;
import static io.simrdma.provider.ObjectFixtures.rdmaWrite;
import static io.simrdma.provider.ObjectFixtures.remote;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrParams;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.MemoryType;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RemoteMemoryRegion;
import io.simrdma.dat.RmrBindCompletionEvent;
import io.simrdma.dat.RmrTriplet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Local Memory Regions: dat_lmr_create(3DAT), dat_lmr_query(3DAT), dat_lmr_free(3DAT),
 * dat_lmr_sync_rdma_read(3DAT), dat_lmr_sync_rdma_write(3DAT). Memory is registered in place: what
 * a peer writes lands in the consumer's buffer, what the consumer writes after registration is what
 * a peer reads.
 */
class LmrTest {

    static Stream<Arguments> modesAndBuffers() {
        List<Arguments> l = new ArrayList<>();
        for (DatPair.Mode m : DatPair.Mode.values()) {
            l.add(Arguments.of(m, true));
            l.add(Arguments.of(m, false));
        }
        return l.stream();
    }

    private static ByteBuffer buffer(boolean direct, int size) {
        return direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
    }

    @ParameterizedTest(name = "{0} direct={1}")
    @MethodSource("modesAndBuffers")
    @DisplayName("dat_lmr_create(3DAT), dat_lmr_query(3DAT): a range of a heap or direct buffer is registered in place")
    void shouldRegisterBufferRangeInPlace(DatPair.Mode mode, boolean direct) {
        try (DatPair p = DatPair.open(mode)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            ByteBuffer buf = buffer(direct, 4096);
            RegionDescription.Virtual region = new RegionDescription.Virtual(buf, 100, 1000);
            LocalMemoryRegion lmr = p.b.ia.createLmr(region, p.b.pz, MemoryPrivilege.all());
            assertEquals(HandleType.LMR, lmr.handleType());
            assertEquals(1000, lmr.registeredSize());
            assertTrue(lmr.rmrContext().isPresent(), "remote privileges give an rmr_context");
            LmrParams q = lmr.query();
            assertSame(p.b.ia, q.ia());
            assertEquals(MemoryType.VIRTUAL, q.memType());
            assertEquals(region, q.region());
            assertEquals(1000, q.length());
            assertSame(p.b.pz, q.pz());
            assertEquals(MemoryPrivilege.all(), q.privileges());
            assertEquals(lmr.lmrContext(), q.lmrContext());
            assertEquals(lmr.rmrContext(), q.rmrContext());
            assertEquals(lmr.registeredSize(), q.registeredSize());
            assertEquals(lmr.registeredAddress(), q.registeredAddress());

            // A peer's RDMA Write lands in the consumer's buffer at offset + 10.
            for (int i = 0; i < 16; i++) {
                p.a.buf.put(i, (byte) (i + 1));
            }
            DtoCompletionStatus w =
                    rdmaWrite(p.a, c.a(), 0, remote(lmr, 10, 16), 1).status();
            assertEquals(DtoCompletionStatus.SUCCESS, w);
            for (int i = 0; i < 16; i++) {
                assertEquals(i + 1, buf.get(110 + i), "byte " + i + " of the RDMA Write");
            }
            assertEquals(0, buf.get(109));
            assertEquals(0, buf.get(126));
            // What the consumer writes after registration is what the peer reads (no copy was taken).
            buf.put(100 + 999, (byte) 0x5A);
            DtoCompletionStatus r =
                    rdmaRead(p.a, c.a(), 100, remote(lmr, 999, 1), 2).status();
            assertEquals(DtoCompletionStatus.SUCCESS, r);
            assertEquals(0x5A, p.a.buf.get(100));
            // One byte beyond the registered range is outside the region.
            DtoCompletionStatus out =
                    rdmaRead(p.a, c.a(), 200, remote(lmr, 999, 2), 3).status();
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, out);
        }
    }

    @Test
    @DisplayName(
            "dat_lmr_create(3DAT): RegionDescription.Virtual(buffer) registers position..limit; later position changes do not matter")
    void shouldRegisterFromPositionToLimit() {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            buf.position(8).limit(40);
            RegionDescription.Virtual region = new RegionDescription.Virtual(buf);
            buf.clear();
            LocalMemoryRegion lmr = p.a.ia.createLmr(region, p.a.pz, MemoryPrivilege.all());
            assertEquals(32, lmr.registeredSize());
            assertEquals(8, ((RegionDescription.Virtual) lmr.query().region()).offset());
            assertEquals(0, buf.position(), "the provider does not move the consumer's position");
            assertEquals(64, buf.limit());
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_lmr_create(3DAT): an empty region -> DAT_INVALID_PARAMETER (length, argument 4)")
    void shouldRefuseEmptyRegion(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            assertDat(
                    DatReturnType.INVALID_PARAMETER,
                    DatReturnSubtype.INVALID_ARG4,
                    () -> p.a.ia.createLmr(
                            new RegionDescription.Virtual(ByteBuffer.allocate(16), 4, 0),
                            p.a.pz,
                            MemoryPrivilege.all()));
        }
    }

    static Stream<Arguments> privilegeSets() {
        return Stream.of(
                Arguments.of(EnumSet.noneOf(MemoryPrivilege.class), false),
                Arguments.of(EnumSet.of(MemoryPrivilege.LOCAL_READ), false),
                Arguments.of(EnumSet.of(MemoryPrivilege.LOCAL_WRITE), false),
                Arguments.of(EnumSet.of(MemoryPrivilege.LOCAL_READ, MemoryPrivilege.LOCAL_WRITE), false),
                Arguments.of(EnumSet.of(MemoryPrivilege.REMOTE_READ), true),
                Arguments.of(EnumSet.of(MemoryPrivilege.LOCAL_WRITE, MemoryPrivilege.REMOTE_WRITE), true),
                Arguments.of(MemoryPrivilege.read(), true),
                Arguments.of(MemoryPrivilege.all(), true));
    }

    @ParameterizedTest
    @MethodSource("privilegeSets")
    @DisplayName("dat_lmr_create(3DAT): no rmr_context unless a remote privilege is asked for; the privileges are kept")
    void shouldGiveRmrContextOnlyWithRemotePrivilege(Set<MemoryPrivilege> privileges, boolean remote) {
        try (DatPair p = DatPair.open(DatPair.Mode.DETERMINISTIC)) {
            LocalMemoryRegion lmr =
                    p.a.ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(64)), p.a.pz, privileges);
            assertEquals(remote, lmr.rmrContext().isPresent(), () -> "rmr_context " + lmr.rmrContext());
            assertEquals(privileges, lmr.query().privileges());
            assertEquals(
                    remote ? lmr.rmrContext() : OptionalInt.empty(), lmr.query().rmrContext());
        }
    }

    static Stream<Arguments> remoteAccess() {
        List<Arguments> l = new ArrayList<>();
        for (DatPair.Mode m : DatPair.Mode.values()) {
            l.add(Arguments.of(m, MemoryPrivilege.read(), true, DtoCompletionStatus.SUCCESS));
            l.add(Arguments.of(m, MemoryPrivilege.read(), false, DtoCompletionStatus.ERR_REMOTE_ACCESS));
            l.add(Arguments.of(m, MemoryPrivilege.write(), false, DtoCompletionStatus.SUCCESS));
            l.add(Arguments.of(m, MemoryPrivilege.write(), true, DtoCompletionStatus.ERR_REMOTE_ACCESS));
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1} read={2} -> {3}")
    @MethodSource("remoteAccess")
    @DisplayName(
            "dat_lmr_create(3DAT): a peer's RDMA Read needs remote read, its RDMA Write remote write (else DAT_DTO_ERR_REMOTE_ACCESS, memory untouched)")
    void shouldEnforceRemotePrivilegesOfTheLmr(
            DatPair.Mode mode, Set<MemoryPrivilege> privileges, boolean read, DtoCompletionStatus expected) {
        try (DatPair p = DatPair.open(mode)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            ByteBuffer buf = ByteBuffer.allocate(256);
            buf.put(0, (byte) 7);
            LocalMemoryRegion lmr = p.b.ia.createLmr(new RegionDescription.Virtual(buf), p.b.pz, privileges);
            RmrTriplet remote = remote(lmr, 0, 4);
            p.a.buf.put(0, (byte) 99);
            p.a.buf.put(8, (byte) 55);
            DtoCompletionStatus st = read
                    ? rdmaRead(p.a, c.a(), 8, remote, 5).status()
                    : rdmaWrite(p.a, c.a(), 0, remote, 5).status();
            assertEquals(expected, st);
            boolean ok = expected == DtoCompletionStatus.SUCCESS;
            assertEquals(!read && ok ? 99 : 7, buf.get(0), "the target memory");
            assertEquals(read && ok ? 7 : 55, p.a.buf.get(8), "the read buffer");
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_ep_post_recv, dat_ep_post_send, dat_ep_post_rdma_read (3DAT): an LMR without the local privilege -> DAT_PRIVILEGES_VIOLATION")
    void shouldEnforceLocalPrivilegesWhenPosting(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            LocalMemoryRegion readOnly = p.a.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)),
                    p.a.pz,
                    EnumSet.of(MemoryPrivilege.LOCAL_READ));
            LocalMemoryRegion writeOnly = p.a.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(64)),
                    p.a.pz,
                    EnumSet.of(MemoryPrivilege.LOCAL_WRITE));
            // C9 CONFLICT: a receive writes local memory, so it needs local write.
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> c.a().postRecv(ObjectFixtures.seg(readOnly, 0, 8), 1, CompletionFlag.defaults()));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_READ,
                    () -> c.a().postSend(ObjectFixtures.seg(writeOnly, 0, 8), 2, CompletionFlag.defaults()));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> c.a().postRdmaRead(
                                    ObjectFixtures.seg(readOnly, 0, 8),
                                    3,
                                    p.b.remote(0, 8),
                                    CompletionFlag.defaults()));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_READ,
                    () -> c.a().postRdmaWrite(
                                    ObjectFixtures.seg(writeOnly, 0, 8),
                                    4,
                                    p.b.remote(0, 8),
                                    CompletionFlag.defaults()));
            // The permitted directions work.
            p.a.buf.put(0, (byte) 1);
            c.a().postRdmaWrite(ObjectFixtures.seg(readOnly, 0, 8), 5, p.b.remote(0, 8), CompletionFlag.defaults());
            EventTestSupport.completion(p.a.dto, 5, DtoCompletionStatus.SUCCESS);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_lmr_create(3DAT): a read-only buffer with a write privilege -> DAT_INVALID_PARAMETER; with read privileges it registers")
    void shouldRefuseWritePrivilegeOnReadOnlyBuffer(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ByteBuffer data = ByteBuffer.allocate(64);
            data.put(3, (byte) 42);
            ByteBuffer readOnly = data.asReadOnlyBuffer();
            for (MemoryPrivilege w :
                    new MemoryPrivilege[] {MemoryPrivilege.LOCAL_WRITE, MemoryPrivilege.REMOTE_WRITE}) {
                assertDat(
                        DatReturnType.INVALID_PARAMETER,
                        DatReturnSubtype.INVALID_ARG6,
                        () -> p.b.ia.createLmr(
                                new RegionDescription.Virtual(readOnly),
                                p.b.pz,
                                EnumSet.of(MemoryPrivilege.LOCAL_READ, w)));
            }
            LocalMemoryRegion lmr =
                    p.b.ia.createLmr(new RegionDescription.Virtual(readOnly), p.b.pz, MemoryPrivilege.read());
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            RmrTriplet remote = remote(lmr, 3, 1);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaRead(p.a, c.a(), 0, remote, 1).status());
            assertEquals(42, p.a.buf.get(0));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_lmr_create(3DAT) DAT_MEM_TYPE_LMR: the memory of an existing LMR registered again in another PZ")
    void shouldRegisterExistingLmrInAnotherPz(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(512);
            LocalMemoryRegion first =
                    p.b.ia.createLmr(new RegionDescription.Virtual(buf, 64, 256), p.b.pz, MemoryPrivilege.all());
            ProtectionZone pz2 = p.b.ia.createPz();
            LocalMemoryRegion second = p.b.ia.createLmr(new RegionDescription.Lmr(first), pz2, MemoryPrivilege.all());
            LmrParams q = second.query();
            assertEquals(MemoryType.LMR, q.memType());
            assertEquals(new RegionDescription.Lmr(first), q.region());
            assertSame(pz2, q.pz());
            assertEquals(first.registeredSize(), second.registeredSize());
            assertNotEquals(first.lmrContext(), second.lmrContext());
            assertNotEquals(first.rmrContext(), second.rmrContext());

            // An endpoint of the second PZ reaches the memory through the second LMR only.
            Endpoint ea = p.a.ep();
            Endpoint eb = p.b.ia.createEndpoint(pz2, p.b.dto, p.b.dto, p.b.conn, null);
            p.connect(ea, eb);
            p.a.buf.put(0, (byte) 0x33);
            RmrTriplet viaSecond = remote(second, 5, 1);
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    rdmaWrite(p.a, ea, 0, viaSecond, 1).status());
            assertEquals(0x33, buf.get(64 + 5), "written into the first LMR's memory");
            RmrTriplet viaFirst = remote(first, 6, 1);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, ea, 0, viaFirst, 2).status(),
                    "the first LMR is in another PZ than the connection's endpoint");
            assertEquals(0, buf.get(64 + 6));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_lmr_create(3DAT) DAT_MEM_TYPE_SHARED_VIRTUAL: registered like virtual memory, with its cookie")
    void shouldRegisterSharedVirtualMemory(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            byte[] cookie = new byte[40];
            cookie[39] = 9;
            RegionDescription.SharedVirtual region =
                    new RegionDescription.SharedVirtual(cookie, ByteBuffer.allocate(128));
            LocalMemoryRegion lmr = p.b.ia.createLmr(region, p.b.pz, MemoryPrivilege.all());
            assertEquals(MemoryType.SHARED_VIRTUAL, lmr.query().memType());
            assertEquals(region, lmr.query().region());
            assertEquals(128, lmr.registeredSize());
            assertTrue(
                    p.b.ia
                            .query()
                            .providerAttributes()
                            .lmrMemTypesSupported()
                            .containsAll(EnumSet.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL)),
                    "dat_ia_query(3DAT): every provider supports virtual, LMR and shared virtual memory");
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_lmr_free(3DAT): an LMR an RMR is bound to -> DAT_INVALID_STATE (LMR in use); after the unbind it is freed")
    void shouldRefuseFreeWhileAnRmrIsBound(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            LocalMemoryRegion lmr = p.b.ia.createLmr(
                    new RegionDescription.Virtual(ByteBuffer.allocate(256)), p.b.pz, MemoryPrivilege.all());
            RemoteMemoryRegion rmr = p.b.pz.createRmr();
            rmr.bind(
                    ObjectFixtures.seg(lmr, 0, 128).get(0),
                    MemoryPrivilege.write(),
                    c.b(),
                    1,
                    CompletionFlag.defaults());
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    DatPair.next(p.b.dto, RmrBindCompletionEvent.class).status());
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, lmr::free);
            assertEquals(lmr.lmrContext(), lmr.query().lmrContext(), "the refused free changed nothing");
            rmr.unbind(c.b(), 2, CompletionFlag.defaults());
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    DatPair.next(p.b.dto, RmrBindCompletionEvent.class).status());
            lmr.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR, lmr::query);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_lmr_free(3DAT): the freed LMR's contexts stop working: local posts fail, the peer's RDMA gets DAT_DTO_ERR_REMOTE_ACCESS")
    void shouldInvalidateContextsWhenFreed(DatPair.Mode mode) {
        try (DatPair p = DatPair.open(mode)) {
            ObjectFixtures.Connected c = ObjectFixtures.connect(p);
            ByteBuffer buf = ByteBuffer.allocate(128);
            LocalMemoryRegion lmr = p.b.ia.createLmr(new RegionDescription.Virtual(buf), p.b.pz, MemoryPrivilege.all());
            List<LmrTriplet> local = ObjectFixtures.seg(lmr, 0, 16);
            RmrTriplet remote = remote(lmr, 0, 16);
            lmr.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR, lmr::query);
            // dat_ep_post_recv(3DAT): an invalid LMR is a privileges violation.
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> c.b().postRecv(local, 1, CompletionFlag.defaults()));
            assertDat(
                    DatReturnType.PRIVILEGES_VIOLATION,
                    DatReturnSubtype.PRIVILEGES_READ,
                    () -> c.b().postSend(local, 2, CompletionFlag.defaults()));
            assertDat(DatReturnType.INVALID_PARAMETER, () -> p.b.ia.syncRdmaRead(local));
            p.a.buf.put(0, (byte) 1);
            assertEquals(
                    DtoCompletionStatus.ERR_REMOTE_ACCESS,
                    rdmaWrite(p.a, c.a(), 0, remote, 3).status());
            assertEquals(0, buf.get(0), "memory of a freed LMR is not written");
        }
    }

    // ------------------------------------------------------------------ dat_lmr_sync_rdma_read / _write

    interface Sync {
        void sync(InterfaceAdapter ia, List<LmrTriplet> segments);
    }

    static Stream<Arguments> syncs() {
        List<Arguments> l = new ArrayList<>();
        for (DatPair.Mode m : DatPair.Mode.values()) {
            l.add(Arguments.of(m, "dat_lmr_sync_rdma_read", (Sync) InterfaceAdapter::syncRdmaRead));
            l.add(Arguments.of(m, "dat_lmr_sync_rdma_write", (Sync) InterfaceAdapter::syncRdmaWrite));
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("syncs")
    @DisplayName("dat_lmr_sync_rdma_read(3DAT), dat_lmr_sync_rdma_write(3DAT): segments inside LMRs of any PZ pass; "
            + "a segment outside its LMR or of no LMR -> DAT_INVALID_PARAMETER; a closed IA -> DAT_INVALID_HANDLE")
    void shouldCheckSyncSegments(DatPair.Mode mode, String page, Sync sync) {
        try (DatPair p = DatPair.open(mode)) {
            InterfaceAdapter ia = p.a.ia;
            assertFalse(ia.query().providerAttributes().lmrSyncRequired(), "memory of one JVM is coherent");
            ProtectionZone pz2 = ia.createPz();
            LocalMemoryRegion other =
                    ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(100)), pz2, MemoryPrivilege.all());
            LocalMemoryRegion lmr = p.a.lmr;
            long base = lmr.registeredAddress();
            int ctx = lmr.lmrContext();
            // Entries need not be of the same LMR nor of the same PZ.
            sync.sync(
                    ia,
                    List.of(
                            new LmrTriplet(ctx, base, 64),
                            new LmrTriplet(other.lmrContext(), other.registeredAddress(), 100),
                            new LmrTriplet(ctx, base + lmr.registeredSize() - 1, 1)));
            sync.sync(ia, List.of());
            // A zero-length segment: the other fields are irrelevant (LmrTriplet).
            sync.sync(ia, List.of(new LmrTriplet(0x7fff_fff1, 1, 0)));

            int unknown = ctx ^ 0x5a5a_0000;
            while (unknown == ctx || unknown == other.lmrContext()) {
                unknown++;
            }
            List<List<LmrTriplet>> bad = List.of(
                    List.of(new LmrTriplet(ctx, base + lmr.registeredSize() - 8, 9)),
                    List.of(new LmrTriplet(ctx, base - 1, 8)),
                    List.of(
                            new LmrTriplet(ctx, base, 8),
                            new LmrTriplet(other.lmrContext(), other.registeredAddress(), 101)),
                    List.of(new LmrTriplet(unknown, base, 8)));
            for (List<LmrTriplet> segments : bad) {
                assertDat(DatReturnType.INVALID_PARAMETER, () -> sync.sync(ia, segments));
            }
            assertDat(DatReturnType.INVALID_PARAMETER, () -> sync.sync(ia, null));
            List<LmrTriplet> ofFreed = ObjectFixtures.seg(other, 0, 10);
            other.free();
            assertDat(DatReturnType.INVALID_PARAMETER, () -> sync.sync(ia, ofFreed));

            InterfaceAdapter closed = io.simrdma.dat.Dat.openIa(ObjectFixtures.iaName(mode, p.fabric, "c", ""), 8);
            try {
                LocalMemoryRegion l = closed.createLmr(
                        new RegionDescription.Virtual(ByteBuffer.allocate(16)),
                        closed.createPz(),
                        MemoryPrivilege.all());
                List<LmrTriplet> ofClosed = ObjectFixtures.seg(l, 0, 8);
                sync.sync(closed, ofClosed);
                closed.close();
                assertDat(
                        DatReturnType.INVALID_HANDLE,
                        DatReturnSubtype.INVALID_HANDLE_IA,
                        () -> sync.sync(closed, ofClosed));
            } finally {
                HandleSet.closeQuietly(closed);
            }
        }
    }
}
