package io.simrdma.conformance;

/**
 * Renders a failing run as a ready-to-paste JUnit 5 test in plain DAT API calls: the run's
 * transcript (every call it made, in order, expected errors as {@code assertDat}) ending in the
 * assertion that fails on the provider, plus the three helpers it uses.
 *
 * <p>Thread safety: stateless.
 */
final class JavaReplay {

    private JavaReplay() {}

    static String render(Run run, SuiteConfig config, long seed) {
        StringBuilder sb = new StringBuilder();
        String cls = "Seed" + Long.toUnsignedString(seed) + "ReplayTest";
        sb.append("import io.simrdma.dat.*;\n");
        sb.append("import org.junit.jupiter.api.Test;\n");
        sb.append("import org.junit.jupiter.api.function.Executable;\n\n");
        sb.append("import java.net.InetSocketAddress;\n");
        sb.append("import java.net.SocketAddress;\n");
        sb.append("import java.nio.ByteBuffer;\n");
        sb.append("import java.util.EnumSet;\n");
        sb.append("import java.util.List;\n");
        sb.append("import java.util.Optional;\n\n");
        sb.append("import static org.junit.jupiter.api.Assertions.*;\n\n");
        sb.append("/** Replays seed ")
                .append(seed)
                .append(" (")
                .append(config.mode())
                .append(") of the conformance suite: ");
        Mismatch m = run.failure;
        if (m != null) {
            sb.append(String.join(", ", m.check.clauses()))
                    .append(": ")
                    .append(m.check.rule())
                    .append(". Expected ")
                    .append(m.expected)
                    .append(", got ")
                    .append(m.actual)
                    .append('.');
        }
        sb.append(" */\n");
        sb.append("class ").append(cls).append(" {\n\n");
        if (!run.settings.defaultRegistry()) {
            sb.append("    /** The registry the suite ran with (for a mutant provider: a registry holding it). */\n");
            sb.append("    static DatRegistry registry = Dat.registry();\n\n");
        }
        sb.append("    @Test\n    void replaysSeed")
                .append(Long.toUnsignedString(seed))
                .append("() {\n");
        for (String line : run.transcript) {
            sb.append("        ").append(line).append('\n');
        }
        sb.append("    }\n\n");
        sb.append("    static byte[] bytes(int n, int seed) {\n");
        sb.append("        byte[] b = new byte[n];\n");
        sb.append("        for (int i = 0; i < n; i++) {\n");
        sb.append("            b[i] = (byte) (seed * 131 + i * 29 + (i >>> 7) + 1);\n");
        sb.append("        }\n        return b;\n    }\n\n");
        sb.append("    static void fill(ByteBuffer buf, int off, int len, int seed) {\n");
        sb.append("        byte[] b = bytes(len, seed);\n");
        sb.append("        for (int i = 0; i < len; i++) {\n            buf.put(off + i, b[i]);\n        }\n    }\n\n");
        sb.append("    static void assertDat(DatReturnType type, Executable call) {\n");
        sb.append("        DatException e = assertThrows(DatException.class, call);\n");
        sb.append("        assertEquals(type, e.type(), () -> \"return type of \" + e);\n    }\n\n");
        sb.append("    static void assertDat(DatReturnType type, DatReturnSubtype subtype, Executable call) {\n");
        sb.append("        DatException e = assertThrows(DatException.class, call);\n");
        sb.append("        assertEquals(type, e.type(), () -> \"return type of \" + e);\n");
        sb.append("        assertEquals(subtype, e.subtype(), () -> \"return subtype of \" + e);\n    }\n");
        sb.append("}\n");
        return sb.toString();
    }
}
