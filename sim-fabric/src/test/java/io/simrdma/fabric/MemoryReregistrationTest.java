package io.simrdma.fabric;

import static io.simrdma.fabric.AccessFlag.LOCAL_WRITE;
import static io.simrdma.fabric.AccessFlag.REMOTE_READ;
import static io.simrdma.fabric.AccessFlag.REMOTE_WRITE;
import static io.simrdma.fabric.ControlPlaneFixture.assertErrno;
import static io.simrdma.fabric.ControlPlaneFixture.assertStatus;
import static io.simrdma.fabric.ControlPlaneFixture.pollOne;
import static io.simrdma.fabric.ReregFlag.CHANGE_ACCESS;
import static io.simrdma.fabric.ReregFlag.CHANGE_PD;
import static io.simrdma.fabric.ReregFlag.CHANGE_TRANSLATION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.fabric.ControlPlaneFixture.Mode;
import io.simrdma.fabric.ControlPlaneFixture.Pairs;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ibv_rereg_mr(3): "conceptually, this call performs the functions deregister memory region
 * followed by register memory region": translation, PD and access change, the keys are those of a
 * new registration, and input errors leave the old region as it was.
 */
class MemoryReregistrationTest {

    private static final Set<AccessFlag> RW = EnumSet.of(LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ);

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_rereg_mr(3) IBV_REREG_MR_CHANGE_TRANSLATION: the region covers the new buffer at a new address under new keys; the old R_Key names nothing")
    void shouldMoveRegionAndChangeKeysWhenTranslationChanges(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            ByteBuffer first = ByteBuffer.allocate(256);
            ByteBuffer second = ByteBuffer.allocate(512);
            MemoryRegion mr = p.b.pd.registerMemory(first, RW);
            int oldL = mr.lkey();
            int oldR = mr.rkey();
            long oldAddr = mr.address();
            mr.reregister(EnumSet.of(CHANGE_TRANSLATION), null, second, null);
            assertNotEquals(oldL, mr.lkey(), "ibv_rereg_mr(3): a new registration's L_Key");
            assertNotEquals(oldR, mr.rkey(), "ibv_rereg_mr(3): a new registration's R_Key");
            assertNotEquals(oldAddr, mr.address(), "the new translation's address");
            assertEquals(512, mr.length());
            assertEquals(RW, mr.access(), "access unchanged without CHANGE_ACCESS");

            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, mr.address() + 300, mr.rkey(), 100, 7));
            assertEquals(p.a.buf.get(0), second.get(300), "the WRITE landed in the new buffer");
            assertEquals(0, first.get(0), "the old buffer is not the region any more");

            WorkCompletion stale = p.write(p.qa2, oldAddr, oldR, 16, 8);
            assertStatus(WcStatus.REM_ACCESS_ERR, stale);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_rereg_mr(3) IBV_REREG_MR_CHANGE_ACCESS: the new rights apply to remote access at once (read-only region: WRITE is a remote access error)")
    void shouldApplyNewRightsWhenAccessChanges(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            ByteBuffer buf = ByteBuffer.allocate(256);
            MemoryRegion mr = p.b.pd.registerMemory(buf, RW);
            long addr = mr.address();
            mr.reregister(EnumSet.of(CHANGE_ACCESS), null, null, EnumSet.of(REMOTE_READ));
            assertEquals(EnumSet.of(REMOTE_READ), mr.access());
            assertEquals(addr, mr.address(), "the translation stays without CHANGE_TRANSLATION");
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, addr, mr.rkey(), 16, 3));
            assertStatus(WcStatus.SUCCESS, p.read(p.qa2, addr, mr.rkey(), 16, 4));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_rereg_mr(3) IBV_REREG_MR_CHANGE_PD: the region serves QPs of the new PD only (IBA 10.6.3: the key's PD must be the QP's)")
    void shouldServeNewPdOnlyWhenPdChanges(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            ProtectionDomain other = p.b.dev.allocPd();
            MemoryRegion mr = p.b.pd.registerMemory(ByteBuffer.allocate(256), RW);
            mr.reregister(EnumSet.of(CHANGE_PD), other, null, null);
            assertSame(other, mr.pd());
            assertStatus(WcStatus.REM_ACCESS_ERR, p.write(p.qa1, mr.address(), mr.rkey(), 16, 5));
            assertErrno(Errno.EBUSY, other::dealloc);
            mr.deregister();
            other.dealloc();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_rereg_mr(3) IBV_REREG_MR_ERR_INPUT: no flag, access without CHANGE_ACCESS, translation to nothing, a PD of another device, remote write without local write: EINVAL, the old region still works")
    void shouldFailWithEinvalAndKeepRegionWhenInputIsBad(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryRegion mr = p.b.pd.registerMemory(ByteBuffer.allocate(256), RW);
            int key = mr.rkey();
            assertErrno(Errno.EINVAL, () -> mr.reregister(EnumSet.noneOf(ReregFlag.class), null, null, null));
            assertErrno(
                    Errno.EINVAL, () -> mr.reregister(EnumSet.of(CHANGE_PD), p.b.pd, null, EnumSet.of(LOCAL_WRITE)));
            assertErrno(Errno.EINVAL, () -> mr.reregister(EnumSet.of(CHANGE_TRANSLATION), null, null, null));
            assertErrno(
                    Errno.EINVAL,
                    () -> mr.reregister(EnumSet.of(CHANGE_TRANSLATION), null, ByteBuffer.allocate(0), null));
            assertErrno(Errno.EINVAL, () -> mr.reregister(EnumSet.of(CHANGE_PD), p.a.pd, null, null));
            assertErrno(Errno.EINVAL, () -> mr.reregister(EnumSet.of(CHANGE_PD), null, null, null));
            assertErrno(
                    Errno.EINVAL, () -> mr.reregister(EnumSet.of(CHANGE_ACCESS), null, null, EnumSet.of(REMOTE_WRITE)));
            assertErrno(
                    Errno.EACCES,
                    () -> mr.reregister(
                            EnumSet.of(CHANGE_TRANSLATION),
                            null,
                            ByteBuffer.allocate(64).asReadOnlyBuffer(),
                            null));
            assertEquals(key, mr.rkey(), "a failed re-registration changes nothing");
            assertStatus(WcStatus.SUCCESS, p.write(p.qa1, mr.address(), key, 16, 6));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName(
            "ibv_rereg_mr(3) / uverbs: a region with a memory window bound is busy (EBUSY); after the window is gone it re-registers")
    void shouldFailWithEbusyWhenWindowIsBound(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryWindow mw = p.b.pd.allocMw(MwType.TYPE_1);
            p.qb1.bindMw(mw, p.target, p.t(0), 64, EnumSet.of(REMOTE_READ), 1, EnumSet.of(SendFlag.SIGNALED));
            assertStatus(WcStatus.SUCCESS, pollOne(p.b.cq));
            assertErrno(Errno.EBUSY, () -> p.target.reregister(EnumSet.of(CHANGE_ACCESS), null, null, RW));
            mw.dealloc();
            p.target.reregister(EnumSet.of(CHANGE_ACCESS), null, null, RW);
            assertEquals(RW, p.target.access());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    @DisplayName("ibv_rereg_mr(3): a deregistered region, or a deallocated new PD, is ENOENT")
    void shouldFailWithEnoentWhenRegionOrPdIsGone(Mode mode) {
        try (Pairs p = new Pairs(mode)) {
            MemoryRegion mr = p.b.pd.registerMemory(ByteBuffer.allocate(64), RW);
            ProtectionDomain gone = p.b.dev.allocPd();
            gone.dealloc();
            assertErrno(Errno.ENOENT, () -> mr.reregister(EnumSet.of(CHANGE_PD), gone, null, null));
            mr.deregister();
            assertErrno(Errno.ENOENT, () -> mr.reregister(EnumSet.of(CHANGE_ACCESS), null, null, RW));
        }
    }
}
