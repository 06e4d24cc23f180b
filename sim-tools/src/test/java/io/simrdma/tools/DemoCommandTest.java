package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Simrdma.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void shouldPassAndPrintEveryStepWhenRunDeterministically() {
        Run r = run("demo");
        assertEquals(0, r.exitCode(), r.err());
        for (String step : new String[] {
            "CONNECT_REQUEST, private data \"hello from a\"",
            "RDMA WRITE 16384 bytes",
            "RDMA READ 16384 bytes",
            "original value 37 returned, word now 42",
            "CONNECTION_EVENT_ESTABLISHED",
            "ia2's memory verified",
            "both IAs closed gracefully",
            "demo passed"
        }) {
            assertTrue(r.out().contains(step), () -> "missing '" + step + "' in:\n" + r.out());
        }
    }

    @Test
    void shouldPrintTheSameOutputWhenRunTwiceWithTheSameSeed() {
        Run first = run("demo", "--seed", "5", "--loss", "0.3", "--trace");
        Run second = run("demo", "--seed", "5", "--loss", "0.3", "--trace");
        assertEquals(0, first.exitCode(), first.err());
        assertTrue(first.out().contains("RETRANSMITTED"), "30% loss should force retransmissions:\n" + first.out());
        assertEquals(first.out(), second.out());
    }

    @Test
    void shouldPassOnTheThreadedFabric() {
        Run r = run("demo", "--mode", "threaded");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("demo passed"), r.out());
    }

    @Test
    void shouldRefuseALossOutsideTheRangeWithAUsageError() {
        Run r = run("demo", "--loss", "0.9");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("--loss must be between 0 and 0.5"), r.err());
    }
}
