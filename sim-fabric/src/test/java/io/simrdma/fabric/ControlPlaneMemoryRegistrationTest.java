package io.simrdma.fabric;

import static io.simrdma.fabric.AccessFlag.LOCAL_WRITE;
import static io.simrdma.fabric.AccessFlag.MW_BIND;
import static io.simrdma.fabric.AccessFlag.REMOTE_ATOMIC;
import static io.simrdma.fabric.AccessFlag.REMOTE_READ;
import static io.simrdma.fabric.AccessFlag.REMOTE_WRITE;
import static io.simrdma.fabric.AccessFlag.ZERO_BASED;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ControlPlaneFixture.read;
import static io.simrdma.fabric.ControlPlaneFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Node;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Memory registration (ibv_reg_mr(3)): the access flag rules, read-only and empty buffers, and
 * the region being the application's own bytes from position to limit, never a copy.
 */
class ControlPlaneMemoryRegistrationTest {

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_reg_mr(3): REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE is EINVAL")
    void shouldFailWithEinvalWhenRemoteWriteWithoutLocalWrite(Mode mode) {
        try (Fabric f = mode.fabric()) {
            ProtectionDomain pd = f.createDevice("d").allocPd();
            ByteBuffer b = ByteBuffer.allocate(64);
            assertErrno(Errno.EINVAL, () -> pd.registerMemory(b, EnumSet.of(REMOTE_WRITE)));
            assertErrno(Errno.EINVAL, () -> pd.registerMemory(b, EnumSet.of(REMOTE_ATOMIC)));
            assertErrno(Errno.EINVAL, () -> pd.registerMemory(b, EnumSet.of(REMOTE_READ, REMOTE_WRITE, MW_BIND)));
            // Local read access is always enabled; REMOTE_READ needs nothing else.
            assertEquals(
                    EnumSet.noneOf(AccessFlag.class),
                    pd.registerMemory(b, EnumSet.noneOf(AccessFlag.class)).access());
            assertEquals(
                    EnumSet.of(REMOTE_READ),
                    pd.registerMemory(b, EnumSet.of(REMOTE_READ)).access());
            assertEquals(
                    EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, REMOTE_ATOMIC),
                    pd.registerMemory(b, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, REMOTE_ATOMIC))
                            .access());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_reg_mr(3): write access to a read-only buffer is EACCES; read access to it is fine")
    void shouldFailWithEaccesWhenReadOnlyBufferGetsWriteAccess(Mode mode) {
        try (Fabric f = mode.fabric()) {
            ProtectionDomain pd = f.createDevice("d").allocPd();
            ByteBuffer ro = ByteBuffer.allocate(64).asReadOnlyBuffer();
            assertErrno(Errno.EACCES, () -> pd.registerMemory(ro, EnumSet.of(LOCAL_WRITE)));
            assertErrno(Errno.EACCES, () -> pd.registerMemory(ro, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE)));
            assertErrno(Errno.EACCES, () -> pd.registerMemory(ro, EnumSet.of(LOCAL_WRITE, REMOTE_ATOMIC)));
            assertEquals(64, pd.registerMemory(ro, EnumSet.of(REMOTE_READ)).length());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_reg_mr(3) / IBA 10.6.2: an empty buffer registers a zero-length region; its keys serve zero-length SENDs, WRITEs and READs, and refuse a single byte")
    void shouldRegisterZeroLengthRegionWhenBufferIsEmpty(Mode mode) {
        try (ControlPlaneFixture.Pairs p = new ControlPlaneFixture.Pairs(mode)) {
            ByteBuffer full = ByteBuffer.allocate(32);
            full.position(32); // nothing between position and limit
            MemoryRegion none = p.a.pd.registerMemory(ByteBuffer.allocate(0), EnumSet.of(LOCAL_WRITE));
            MemoryRegion emptyB = p.b.pd.registerMemory(full, ControlPlaneFixture.ALL);
            assertEquals(0, none.length());
            assertEquals(0, emptyB.length());
            assertTrue(none.isValid());
            assertNotEquals(none.lkey(), emptyB.lkey());
            p.qb1.postRecv(ControlPlaneFixture.recv(p.b, 1, 0, 64));
            p.qa1.postSend(new SendWr()
                    .wrId(2)
                    .opcode(WrOpcode.SEND)
                    .sge(none.address(), 0, none.lkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.a.cq));
            assertEquals(0, assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq)).byteLen());
            p.qa1.postSend(new SendWr()
                    .wrId(3)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(none.address(), 0, none.lkey())
                    .remote(emptyB.address(), emptyB.rkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.a.cq));
            p.qa1.postSend(new SendWr()
                    .wrId(4)
                    .opcode(WrOpcode.RDMA_READ)
                    .sge(none.address(), 0, none.lkey())
                    .remote(emptyB.address(), emptyB.rkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.a.cq));
            // One byte through the empty region's R_Key lies outside it.
            p.qa2.postSend(new SendWr()
                    .wrId(5)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(p.a.mr, 0, 1)
                    .remote(emptyB.address(), emptyB.rkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(p.a.cq));
            none.deregister();
            emptyB.deregister();
            assertErrno(Errno.EINVAL, () -> p.a.pd.registerMemory(ByteBuffer.allocate(8), EnumSet.of(LOCAL_WRITE), -1));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_reg_mr(3): the region is the buffer's bytes from position to limit, accessed in place (a write lands in it, later changes are read remotely)")
    void shouldAccessBufferInPlaceFromPositionToLimitWhenRegistered(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.connectedTo(b);
            ByteBuffer target = ByteBuffer.allocateDirect(1000);
            target.position(100).limit(300);
            MemoryRegion mr = b.pd.registerMemory(target, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ));
            assertEquals(200, mr.length());
            assertEquals(100, target.position(), "registration leaves the buffer's position alone");
            assertEquals(300, target.limit());

            // An RDMA WRITE at the region's start lands at the buffer's position.
            a.buf.putLong(0, 0x0102030405060708L);
            qa.postSend(write(a, 1, 0, 8, mr.address(), mr.rkey()));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            assertEquals(0x0102030405060708L, target.getLong(100));
            assertEquals(0, target.getLong(0), "bytes before the position are not part of the region");

            // A change made to the buffer after registration is what a remote READ sees: no copy.
            target.putLong(100 + 192, 0x1122334455667788L);
            qa.postSend(read(a, 2, 64, 8, mr.address() + 192, mr.rkey()));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            assertEquals(0x1122334455667788L, a.buf.getLong(64));

            // The region ends at the limit: one byte beyond is a remote access error.
            qa.postSend(write(a, 3, 0, 9, mr.address() + 192, mr.rkey()));
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
            assertEquals(0x1122334455667788L, target.getLong(292), "a failed access never touches memory");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_reg_mr(3) IBV_ACCESS_ZERO_BASED / ibv_reg_mr_iova: remote addresses start at 0 or at the chosen iova")
    void shouldAddressRegionFromZeroOrIovaWhenRequested(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.connectedTo(b);
            ByteBuffer zb = ByteBuffer.allocate(256);
            MemoryRegion zero = b.pd.registerMemory(zb, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, ZERO_BASED));
            assertEquals(0, zero.address());
            ByteBuffer ib = ByteBuffer.allocate(256);
            MemoryRegion iova = b.pd.registerMemory(ib, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE), 0x10_0000L);
            assertEquals(0x10_0000L, iova.address());
            assertNotEquals(zero.rkey(), iova.rkey());

            a.buf.putInt(0, 0xCAFEBABE);
            qa.postSend(write(a, 1, 0, 4, 16, zero.rkey()));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            assertEquals(0xCAFEBABE, zb.getInt(16));
            qa.postSend(write(a, 2, 0, 4, 0x10_0000L + 32, iova.rkey()));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            assertEquals(0xCAFEBABE, ib.getInt(32));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "IBA 10.6.3.1: a region registered after another was deregistered gets a fresh key; the old key does not reach it")
    void shouldNotReachNewRegionWhenOldKeyUsed(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.connectedTo(b);
            MemoryRegion old = b.pd.registerMemory(ByteBuffer.allocate(256), EnumSet.of(LOCAL_WRITE, REMOTE_WRITE));
            int oldKey = old.rkey();
            old.deregister();
            ByteBuffer fresh = ByteBuffer.allocate(256);
            MemoryRegion now = b.pd.registerMemory(fresh, EnumSet.of(LOCAL_WRITE, REMOTE_WRITE), old.address());
            assertEquals(oldKey >>> 8, now.rkey() >>> 8, "the key index is reused");
            assertNotEquals(oldKey, now.rkey(), "with a new tag");
            qa.postSend(write(a, 1, 0, 8, now.address(), now.rkey()));
            assertStatus(WcStatus.SUCCESS, pollOne(a.cq));
            fresh.putLong(0, 0);
            qa.postSend(write(a, 2, 0, 8, now.address(), oldKey));
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
            assertEquals(0, fresh.getLong(0));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_dereg_mr: the keys of a deregistered region stop working locally (LOC_PROT_ERR) and remotely (REM_ACCESS_ERR)")
    void shouldRejectKeysWhenRegionDeregistered(Mode mode) {
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.connectedTo(b);
            MemoryRegion local = a.pd.registerMemory(ByteBuffer.allocate(64), EnumSet.of(LOCAL_WRITE));
            local.deregister();
            qa.postSend(new SendWr()
                    .wrId(1)
                    .opcode(WrOpcode.RDMA_WRITE)
                    .sge(local, 0, 8)
                    .remote(b.addr(0), b.mr.rkey())
                    .flag(SendFlag.SIGNALED));
            assertStatus(WcStatus.LOC_PROT_ERR, pollOne(a.cq));
        }
        try (Fabric f = mode.fabric()) {
            Node a = Node.of(f, "a");
            Node b = Node.of(f, "b");
            QueuePair qa = a.connectedTo(b);
            MemoryRegion remote = b.pd.registerMemory(ByteBuffer.allocate(64), EnumSet.of(LOCAL_WRITE, REMOTE_WRITE));
            long addr = remote.address();
            int rkey = remote.rkey();
            remote.deregister();
            qa.postSend(write(a, 2, 0, 8, addr, rkey));
            assertStatus(WcStatus.REM_ACCESS_ERR, pollOne(a.cq));
        }
    }
}
