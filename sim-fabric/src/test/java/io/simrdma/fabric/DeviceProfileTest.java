package io.simrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The device profile table ({@link DeviceProfile}): every shipped profile gives every setting a
 * value and a source, the README's "Device profiles" table is this table, and a device reports its
 * profile's limits, atomic_cap and device_cap_flags through ibv_query_device(3), with limits set
 * in its {@link DeviceConfig} taking precedence.
 */
class DeviceProfileTest {

    static Stream<DeviceProfile> shipped() {
        return DeviceProfile.shipped().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shipped")
    @DisplayName("every row of every shipped profile has a value and a source, in Setting order")
    void shouldGiveEverySettingAValueAndASourceWhenProfileIsShipped(DeviceProfile p) {
        List<DeviceProfile.Choice> rows = p.choices();
        assertEquals(DeviceProfile.Setting.values().length, rows.size(), p + ": one row per setting");
        for (int i = 0; i < rows.size(); i++) {
            DeviceProfile.Choice c = rows.get(i);
            assertEquals(DeviceProfile.Setting.values()[i], c.setting(), p + ": rows in Setting order");
            assertFalse(c.source().isBlank(), p + " " + c.setting() + ": a source");
            assertFalse(c.valueText().isBlank(), p + " " + c.setting() + ": a value");
            assertSame(c, p.choice(c.setting()));
        }
    }

    @Test
    @DisplayName(
            "profiles are found by name, case-insensitively; an unknown name lists the known ones; ibta is the default")
    void shouldFindShippedProfilesByNameWhenLookedUp() {
        assertSame(DeviceProfile.IBTA, DeviceProfile.named("ibta"));
        assertSame(DeviceProfile.MLX5, DeviceProfile.named("MLX5"));
        assertSame(DeviceProfile.RXE, DeviceProfile.named("rxe"));
        assertSame(DeviceProfile.SIW, DeviceProfile.named("Siw"));
        assertSame(DeviceProfile.IBTA, DeviceProfile.DEFAULT);
        assertSame(DeviceProfile.DEFAULT, DeviceConfig.named("x").profile());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceProfile.named("cx7"));
        assertTrue(e.getMessage().contains("[ibta, mlx5, rxe, siw]"), e.getMessage());
    }

    @Test
    @DisplayName(
            "a profile built without a value for every setting, or with max_mw contradicting its memory windows, is refused")
    void shouldRefuseProfileWhenASettingIsMissingOrContradicted() {
        IllegalStateException missing = assertThrows(
                IllegalStateException.class,
                () -> DeviceProfile.builder("half", "incomplete")
                        .cqOverrun(DeviceProfile.CqOverrun.ERROR, "x")
                        .build());
        assertTrue(missing.getMessage().contains("POST_SEND_BEFORE_RTS"), missing.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> DeviceProfile.IBTA
                        .derive("no-mw", "windows off, max_mw kept")
                        .memoryWindows(EnumSet.noneOf(MwType.class), "test")
                        .build());
        assertThrows(
                IllegalArgumentException.class,
                () -> DeviceProfile.IBTA
                        .derive("bad", "bad status")
                        .sendInvalidateRecvStatus(WcStatus.SUCCESS, "test"));
        assertThrows(
                IllegalArgumentException.class,
                () -> DeviceProfile.IBTA.derive("bad", "bad errno").unsupportedOperation(Errno.EIO, "test"));
        DeviceProfile derived = DeviceProfile.SIW
                .derive("siw-stall-error", "siw with IBA overrun")
                .cqOverrun(DeviceProfile.CqOverrun.ERROR, "test")
                .build();
        assertEquals(DeviceProfile.CqOverrun.ERROR, derived.cqOverrun());
        assertFalse(derived.atomics(), "the rest is siw's");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shipped")
    @DisplayName(
            "ibv_query_device(3): a device reports its profile's limits, identity, atomic_cap and device_cap_flags")
    void shouldReportProfileLimitsAndCapabilitiesWhenDeviceIsQueried(DeviceProfile p) {
        try (Fabric f = Fabric.deterministic(1)) {
            Device d = f.createDevice(DeviceConfig.named("d").profile(p));
            assertSame(p, d.profile());
            DeviceAttributes a = d.query();
            DeviceProfile.Limits l = p.limits();
            assertEquals(l.maxQp(), a.maxQp());
            assertEquals(l.maxQpWr(), a.maxQpWr());
            assertEquals(l.maxSge(), a.maxSge());
            assertEquals(l.maxSgeRd(), a.maxSgeRd());
            assertEquals(l.maxCq(), a.maxCq());
            assertEquals(l.maxCqe(), a.maxCqe());
            assertEquals(l.maxMr(), a.maxMr());
            assertEquals(l.maxPd(), a.maxPd());
            assertEquals(l.maxMw(), a.maxMw());
            assertEquals(l.maxSrq(), a.maxSrq());
            assertEquals(l.maxSrqWr(), a.maxSrqWr());
            assertEquals(l.maxSrqSge(), a.maxSrqSge());
            assertEquals(l.maxQpRdAtom(), a.maxQpRdAtom());
            assertEquals(l.maxQpInitRdAtom(), a.maxQpInitRdAtom());
            assertEquals(l.maxResRdAtom(), a.maxResRdAtom());
            assertEquals(l.maxInlineData(), a.maxInlineData());
            assertEquals(l.vendorId(), a.vendorId());
            assertEquals(l.vendorPartId(), a.vendorPartId());
            assertEquals(l.fwVer(), a.fwVer());
            assertEquals(l.maxMtu(), d.queryPort(1).maxMtu());
            assertEquals(l.numCompVectors(), a.numCompVectors());
            assertEquals(p.atomics() ? AtomicCap.HCA : AtomicCap.NONE, a.atomicCap());
            assertEquals(p.supports(MwType.TYPE_1), a.capabilities().contains(DeviceCapability.MEM_WINDOW));
            assertEquals(p.supports(MwType.TYPE_2), a.capabilities().contains(DeviceCapability.MEM_WINDOW_TYPE_2B));
            assertEquals(p.sendWithInvalidate(), a.capabilities().contains(DeviceCapability.MEM_MGT_EXTENSIONS));
            int mask = 0;
            for (DeviceCapability c : a.capabilities()) {
                mask |= c.bit();
            }
            assertEquals(mask, a.deviceCapFlags());
        }
    }

    @Test
    @DisplayName(
            "siw reports atomic_cap ATOMIC_NONE, max_mw 0, no MEM_WINDOW flags; mlx5 reports ConnectX-5's limits (max_sge 30, max_cqe 4194303)")
    void shouldReportSiwWithoutAtomicsAndWindowsAndMlx5WithItsLimitsWhenQueried() {
        try (Fabric f = Fabric.deterministic(1)) {
            DeviceAttributes siw = f.createDevice(DeviceConfig.named("s").profile(DeviceProfile.SIW))
                    .query();
            assertEquals(AtomicCap.NONE, siw.atomicCap());
            assertEquals(0, siw.maxMw());
            assertEquals(1, siw.maxSgeRd(), "iWARP: one SGE per RDMA READ");
            assertFalse(siw.capabilities().contains(DeviceCapability.MEM_WINDOW));
            assertFalse(siw.capabilities().contains(DeviceCapability.MEM_WINDOW_TYPE_2B));
            assertTrue(
                    siw.capabilities().contains(DeviceCapability.MEM_MGT_EXTENSIONS), "siw has SEND with invalidate");
            DeviceAttributes mlx5 = f.createDevice(DeviceConfig.named("m").profile(DeviceProfile.MLX5))
                    .query();
            assertEquals(AtomicCap.HCA, mlx5.atomicCap());
            assertEquals(30, mlx5.maxSge());
            assertEquals(4194303, mlx5.maxCqe());
            assertEquals(0x02c9, mlx5.vendorId());
        }
    }

    @Test
    @DisplayName(
            "DeviceConfig: a limit set on the configuration overrides the profile's, whether set before or after the profile")
    void shouldPreferConfiguredLimitWhenSetBeforeOrAfterProfile() {
        DeviceAttributes before = DeviceConfig.named("a")
                .maxQp(4)
                .maxMtu(Mtu.MTU_1024)
                .profile(DeviceProfile.MLX5)
                .attributes(1);
        DeviceAttributes after =
                DeviceConfig.named("b").profile(DeviceProfile.MLX5).maxQp(4).attributes(2);
        assertEquals(4, before.maxQp());
        assertEquals(4, after.maxQp());
        assertEquals(30, before.maxSge(), "the rest is the profile's");
        assertEquals(
                Mtu.MTU_1024,
                DeviceConfig.named("c")
                        .maxMtu(Mtu.MTU_1024)
                        .profile(DeviceProfile.SIW)
                        .maxMtu());
        assertEquals(
                Mtu.MTU_4096, DeviceConfig.named("d").profile(DeviceProfile.SIW).maxMtu());
    }

    // ------------------------------------------------------------------ the README's table

    /** The README's "Device profiles" table, made from the profiles' rows. */
    static String markdownTable(List<DeviceProfile> profiles) {
        StringBuilder sb = new StringBuilder("| setting |");
        StringBuilder rule = new StringBuilder("|---|");
        for (DeviceProfile p : profiles) {
            sb.append(" `").append(p.name()).append("` |");
            rule.append("---|");
        }
        sb.append('\n').append(rule).append('\n');
        for (DeviceProfile.Setting s : DeviceProfile.Setting.values()) {
            sb.append("| ").append(s.title()).append(" |");
            for (DeviceProfile p : profiles) {
                DeviceProfile.Choice c = p.choice(s);
                sb.append(" **")
                        .append(c.valueText())
                        .append("**: ")
                        .append(c.source())
                        .append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    @DisplayName(
            "README.md's Device profiles table is the profiles' table: every setting, every shipped profile, value and source")
    void shouldMatchReadmeTableWhenProfilesChange() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int b = readme.indexOf("<!-- profiles:begin -->");
        int e = readme.indexOf("<!-- profiles:end -->");
        assertTrue(b >= 0 && e > b, "README.md lacks the profiles table markers");
        String table = readme.substring(readme.indexOf('\n', b) + 1, e);
        String expected = markdownTable(DeviceProfile.shipped());
        assertEquals(
                expected, table, "README.md's profile table differs from DeviceProfile; it should read:\n" + expected);
    }
}
