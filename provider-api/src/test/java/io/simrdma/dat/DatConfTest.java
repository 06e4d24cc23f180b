package io.simrdma.dat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatConfTest {

    private static final String LINE = "sim0 u1.2 threadsafe default simrdma simrdma.0.1 \"sim:fabric0/dev0\" \"\"";

    @TempDir
    Path dir;

    private static DatException parseError(String text) {
        return assertThrows(DatException.class, () -> DatConf.parse(text, "t.conf"));
    }

    @Test
    void shouldParseEveryFieldWhenLineIsValid() {
        DatConf conf = DatConf.parse(LINE + "\n", "t.conf");
        assertEquals(1, conf.entries().size());
        DatConfEntry e = conf.entries().get(0);
        assertEquals(
                new DatConfEntry("sim0", 1, 2, true, true, "simrdma", "simrdma", 0, 1, "sim:fabric0/dev0", "", 1), e);
        assertEquals(new ProviderInfo("sim0", 1, 2, true), e.providerInfo());
        assertEquals("t.conf", conf.source());
    }

    @Test
    void shouldSkipCommentsAndBlankLinesWhenParsing() {
        String text = "# static registry\n\n   \t\n" + LINE + "   # trailing comment\n"
                + "ib0\tu1.2\tnonthreadsafe\tnondefault\tother\t2.3\tib0\t\"a b\"\n";
        DatConf conf = DatConf.parse(text, "t.conf");
        assertEquals(2, conf.entries().size());
        assertEquals(4, conf.entries().get(0).lineNumber());
        DatConfEntry ib = conf.entries().get(1);
        assertEquals(5, ib.lineNumber());
        assertFalse(ib.threadSafe());
        assertFalse(ib.defaultEntry());
        assertEquals("", ib.providerVersionId());
        assertEquals(2, ib.providerVersionMajor());
        assertEquals(3, ib.providerVersionMinor());
        assertEquals("ib0", ib.iaParams());
        assertEquals("a b", ib.platformParams());
        assertEquals(List.of(ib), conf.entriesFor("ib0"));
        assertEquals(List.of(), conf.entriesFor("nope"));
    }

    @Test
    void shouldKeepHashAndSpacesWhenInsideQuotes() {
        DatConf conf = DatConf.parse("x u1.2 THREADSAFE Default p p.1.0 \"a # b\" \"\"", "t.conf");
        assertEquals("a # b", conf.entries().get(0).iaParams());
        assertTrue(conf.entries().get(0).threadSafe());
    }

    @Test
    void shouldNameSourceAndLineWhenFieldCountIsWrong() {
        DatException e = parseError("# c\nsim0 u1.2 threadsafe default simrdma\n");
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals(
                "DAT_INVALID_PARAMETER: t.conf:2: expected 8 fields (<ia-name> <api-version> <thread-safety>"
                        + " <default> <provider> <provider-version> <ia-params> <platform-params>), found 5",
                e.getMessage());
        assertEquals(
                "t.conf:1: expected 8 fields (<ia-name> <api-version> <thread-safety> <default> <provider>"
                        + " <provider-version> <ia-params> <platform-params>), found 9",
                parseError(LINE + " extra").detail());
    }

    @Test
    void shouldRejectApiVersionWhenNotUMajorDotMinor() {
        assertEquals(
                "t.conf:1: api-version '1.2' is not u<major>.<minor>",
                parseError(LINE.replace("u1.2", "1.2")).detail());
        assertEquals(
                "t.conf:1: api-version 'k1.2' is not u<major>.<minor>",
                parseError(LINE.replace("u1.2", "k1.2")).detail());
    }

    @Test
    void shouldRejectKeywordWhenNeitherAllowedValue() {
        assertEquals(
                "t.conf:1: thread-safety 'safe' is neither threadsafe nor nonthreadsafe",
                parseError(LINE.replace("threadsafe", "safe")).detail());
        assertEquals(
                "t.conf:1: default 'yes' is neither default nor nondefault",
                parseError(LINE.replace(" default ", " yes ")).detail());
    }

    @Test
    void shouldRejectProviderVersionWhenNumbersAreMissing() {
        assertEquals(
                "t.conf:1: provider-version 'simrdma' is not [<id>.]<major>.<minor>",
                parseError(LINE.replace("simrdma.0.1", "simrdma")).detail());
    }

    @Test
    void shouldRejectLineWhenQuoteIsUnterminatedOrMisplaced() {
        String open = "sim0 u1.2 threadsafe default simrdma simrdma.0.1 \"x y";
        assertEquals(
                "t.conf:1: unterminated quoted field at column 50",
                parseError(open).detail());
        assertEquals(49, open.indexOf('"'));
        assertEquals(
                "t.conf:1: quote inside a field at column 4",
                parseError("sim\"0\" u1.2").detail());
        assertEquals(
                "t.conf:1: no space after the quoted field ending at column 3",
                parseError("\"a\"b").detail());
    }

    @Test
    void shouldRejectSecondEntryWhenNameVersionAndThreadSafetyRepeat() {
        assertEquals(
                "t.conf:2: duplicate entry for IA name 'sim0' (same version and thread safety as line 1)",
                parseError(LINE + "\n" + LINE.replace("simrdma.0.1", "simrdma.0.2"))
                        .detail());
        assertEquals(
                2,
                DatConf.parse(LINE + "\n" + LINE.replace("u1.2", "u1.3"), "t.conf")
                        .entriesFor("sim0")
                        .size());
    }

    @Test
    void shouldRejectIaNameWhenTooLong() {
        String name = "n".repeat(256);
        assertEquals(
                "t.conf:1: IA name has 256 characters; at most 255 fit DAT_NAME_MAX_LENGTH",
                parseError(LINE.replace("sim0", name)).detail());
    }

    @Test
    void shouldReadFileWhenSystemPropertyNamesIt() throws IOException {
        Path file = Files.writeString(dir.resolve("a.conf"), LINE);
        Files.writeString(dir.resolve(".dat.conf"), LINE.replace("sim0", "home0"));
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            DatConf conf = DatConf.locate(
                    Map.of("dat.conf", file.toString())::get, Map.of("DAT_OVERRIDE", "/nonexistent")::get, empty, dir);
            assertEquals(file.toString(), conf.source());
            assertEquals("sim0", conf.entries().get(0).iaName());
        }
    }

    @Test
    void shouldReadDatOverrideWhenNoSystemPropertyIsSet() throws IOException {
        Path file = Files.writeString(dir.resolve("b.conf"), LINE.replace("sim0", "env0"));
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            DatConf conf = DatConf.locate(k -> null, Map.of("DAT_OVERRIDE", file.toString())::get, empty, dir);
            assertEquals("env0", conf.entries().get(0).iaName());
        }
    }

    @Test
    void shouldReadClassPathResourceWhenNeitherPropertyNorVariableIsSet() throws IOException {
        Path cp = Files.createDirectory(dir.resolve("cp"));
        Files.writeString(cp.resolve("dat.conf"), LINE.replace("sim0", "cp0"));
        Files.writeString(dir.resolve(".dat.conf"), LINE.replace("sim0", "home0"));
        try (URLClassLoader loader = new URLClassLoader(new URL[] {cp.toUri().toURL()}, null)) {
            DatConf conf = DatConf.locate(k -> null, k -> null, loader, dir);
            assertEquals("cp0", conf.entries().get(0).iaName());
            assertTrue(conf.source().endsWith("dat.conf"), conf.source());
        }
    }

    @Test
    void shouldReadUserFileWhenNothingElseIsFound() throws IOException {
        Files.writeString(dir.resolve(".dat.conf"), LINE.replace("sim0", "home0"));
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            DatConf conf = DatConf.locate(k -> null, k -> null, empty, dir);
            assertEquals("home0", conf.entries().get(0).iaName());
        }
    }

    @Test
    void shouldBeEmptyWhenNoFileIsFound() throws IOException {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            assertSame(DatConf.empty(), DatConf.locate(k -> null, k -> null, empty, dir));
            assertSame(DatConf.empty(), DatConf.locate(Map.of("dat.conf", "")::get, k -> null, empty, dir));
        }
        assertEquals("none", DatConf.empty().source());
    }

    @Test
    void shouldFailWithInternalErrorWhenNamedFileIsMissing() throws IOException {
        String missing = dir.resolve("missing.conf").toString();
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            DatException e = assertThrows(
                    DatException.class,
                    () -> DatConf.locate(k -> null, Map.of("DAT_OVERRIDE", missing)::get, empty, dir));
            assertEquals(DatReturnType.INTERNAL_ERROR, e.type());
            assertEquals("the DAT static registry " + missing + " is missing or unreadable", e.detail());
        }
    }
}
