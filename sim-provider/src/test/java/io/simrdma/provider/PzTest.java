package io.simrdma.provider;

import static io.simrdma.provider.DatPair.assertDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.FreeableHandle;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.SrqAttributes;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Protection Zones: dat_pz_create(3DAT), dat_pz_query(3DAT), dat_pz_free(3DAT). */
class PzTest {

    /** The objects that use a PZ, each created in {@code pz}. */
    enum User {
        LMR(s -> s.ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(128)), s.pz, MemoryPrivilege.all())),
        RMR(s -> s.pz.createRmr()),
        EP(s -> s.ia.createEndpoint(s.pz, s.dto, s.dto, null, null)),
        SRQ(s -> s.ia.createSrq(s.pz, new SrqAttributes(4, 1, Dat.SRQ_LW_DEFAULT)));

        final Function<Setup, FreeableHandle> create;

        User(Function<Setup, FreeableHandle> create) {
            this.create = create;
        }
    }

    /** An IA with a PZ and a DTO EVD. */
    record Setup(InterfaceAdapter ia, ProtectionZone pz, EventDispatcher dto) {
        static Setup open(DatPair.Mode mode) {
            InterfaceAdapter ia = Dat.openIa(ObjectFixtures.iaName(mode, ObjectFixtures.fabric("pz"), "d", ""), 8);
            return new Setup(ia, ia.createPz(), ia.createEvd(16, EnumSet.of(EvdFlag.DTO)));
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_pz_create(3DAT), dat_pz_query(3DAT): a new PZ of the IA; each create gives another")
    void shouldCreateAndQueryPz(DatPair.Mode mode) {
        Setup s = Setup.open(mode);
        try {
            assertEquals(HandleType.PZ, s.pz.handleType());
            assertSame(s.ia, s.pz.query().ia());
            ProtectionZone other = s.ia.createPz();
            assertNotSame(s.pz, other);
            assertSame(s.ia, other.query().ia());
            other.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, other::query);
        } finally {
            s.ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(User.class)
    @DisplayName(
            "dat_pz_free(3DAT): a PZ in use by an LMR, RMR, EP or SRQ -> DAT_INVALID_STATE (PZ in use); free once unused")
    void shouldRefuseFreeWhileAnObjectUsesThePz(User user) {
        for (DatPair.Mode mode : DatPair.Mode.values()) {
            Setup s = Setup.open(mode);
            try {
                FreeableHandle h = user.create.apply(s);
                assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, s.pz::free);
                // The refused free changed nothing: the PZ is still usable.
                assertSame(s.ia, s.pz.query().ia());
                h.free();
                s.pz.free();
                assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, s.pz::query);
                s.dto.free();
                s.ia.close(CloseFlag.GRACEFUL);
            } finally {
                HandleSet.closeQuietly(s.ia);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_pz_free(3DAT): the PZ stays in use while any of several users remains")
    void shouldRefuseFreeUntilTheLastUserIsGone(DatPair.Mode mode) {
        Setup s = Setup.open(mode);
        try {
            FreeableHandle[] users = new FreeableHandle[User.values().length];
            for (User u : User.values()) {
                users[u.ordinal()] = u.create.apply(s);
            }
            // RMR and EP before LMR and SRQ; a refused free after each.
            for (int i : new int[] {1, 2, 0, 3}) {
                assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, s.pz::free);
                users[i].free();
            }
            s.pz.free();
        } finally {
            s.ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName(
            "dat_pz_free(3DAT), dat_ep_modify(3DAT): an EP moved to another PZ releases the old one and holds the new")
    void shouldFollowTheEndpointWhenItsPzIsModified(DatPair.Mode mode) {
        Setup s = Setup.open(mode);
        try {
            Endpoint ep = s.ia.createEndpoint(s.pz, s.dto, s.dto, null, null);
            ProtectionZone pz2 = s.ia.createPz();
            ep.modify(EpModify.builder().pz(pz2).build());
            assertSame(pz2, ep.query().pz().orElseThrow());
            s.pz.free();
            assertDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz2::free);
            ep.free();
            pz2.free();
        } finally {
            s.ia.close(CloseFlag.ABRUPT);
        }
    }

    @ParameterizedTest
    @EnumSource(DatPair.Mode.class)
    @DisplayName("dat_pz_free(3DAT), dat_lmr_create(3DAT), dat_rmr_create(3DAT): a freed PZ -> DAT_INVALID_HANDLE (PZ)")
    void shouldFailWithInvalidHandleWhenPzWasFreed(DatPair.Mode mode) {
        Setup s = Setup.open(mode);
        try {
            ProtectionZone pz = s.ia.createPz();
            pz.free();
            Executable[] uses = {
                pz::query,
                pz::createRmr,
                () -> s.ia.createLmr(new RegionDescription.Virtual(ByteBuffer.allocate(8)), pz, MemoryPrivilege.all()),
                () -> s.ia.createSrq(pz, new SrqAttributes(4, 1, 0)),
                () -> s.ia.createEndpoint(pz, s.dto, s.dto, null, null),
            };
            for (Executable use : uses) {
                assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, use);
            }
        } finally {
            s.ia.close(CloseFlag.ABRUPT);
        }
    }
}
