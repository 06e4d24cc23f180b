package io.simrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code simrdma example}: lists the examples, runs one by name, refuses an unknown name. */
class ExampleCommandTest {

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
    @DisplayName("simrdma example lists every example; simrdma example NAME runs it; an unknown name is a usage error")
    void shouldListRunAndRefuseWhenGivenNoNameANameOrAWrongName() {
        Run list = run("example");
        assertEquals(0, list.exitCode(), list.err());
        for (String name : new String[] {
            "rc-pingpong", "rping-verbs", "rping-dat", "write-imm", "atomic-counter", "srq-server", "fault-lab"
        }) {
            assertTrue(list.out().contains(name), "listed: " + name + "\n" + list.out());
        }
        Run one = run("example", "write-imm", "--ladder");
        assertEquals(0, one.exitCode(), one.err());
        assertTrue(one.out().contains("RECV_RDMA_WITH_IMM, immediate 3"), one.out());
        assertTrue(one.out().contains("WRITE Only Imm #"), "the ladder names the opcode:\n" + one.out());
        Run wrong = run("example", "no-such-example");
        assertEquals(2, wrong.exitCode());
        assertTrue(wrong.err().contains("no example called no-such-example"), wrong.err());
    }
}
