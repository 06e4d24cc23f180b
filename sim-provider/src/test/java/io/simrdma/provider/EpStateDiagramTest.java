package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.EndpointState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Generates the DAT endpoint state diagram from {@link EpStateTable} (each edge with the man page of
 * its row) as Mermaid and DOT, and fails when the committed diagrams under docs/diagrams/ differ
 * from the table. {@code -Ddiagrams.write=true} writes them anew.
 */
class EpStateDiagramTest {

    /** An edge of the diagram: a row of the table whose operation moves the endpoint to another state. */
    record Edge(EndpointState from, EpOp op, EndpointState to, String source) {}

    static List<Edge> edges() {
        List<Edge> edges = new ArrayList<>();
        for (Map.Entry<EndpointState, Map<EpOp, EpStateTable.Rule>> row :
                EpStateTable.rows().entrySet()) {
            for (Map.Entry<EpOp, EpStateTable.Rule> cell : row.getValue().entrySet()) {
                EpStateTable.Rule r = cell.getValue();
                if (r.next() != null && r.next() != row.getKey()) {
                    edges.add(new Edge(row.getKey(), cell.getKey(), r.next(), r.source()));
                }
            }
        }
        return edges;
    }

    static String mermaid() {
        StringBuilder b = new StringBuilder();
        b.append("# DAT endpoint state machine\n\n");
        b.append("Generated from `EpStateTable` (sim-provider), the provider's table of (state, operation) rows\n");
        b.append("taken from the DAT 1.2 man pages: each edge is a row whose operation moves the endpoint to\n");
        b.append("another state, labelled with the man page it comes from. Connection events (ESTABLISHED,\n");
        b.append("DISCONNECTED, a reject or a timeout) then move it on, as the ladder of `simrdma demo --ladder`\n");
        b.append("shows. `EpStateDiagramTest` fails when this file no longer matches the table.\n\n");
        b.append("```mermaid\nstateDiagram-v2\n");
        b.append("    [*] --> UNCONNECTED: dat_ep_create\n");
        for (Edge e : edges()) {
            b.append("    ")
                    .append(e.from())
                    .append(" --> ")
                    .append(e.to())
                    .append(": ")
                    .append(e.source());
            b.append('\n');
        }
        b.append("```\n\n| state | operation | next state | man page |\n|---|---|---|---|\n");
        for (Edge e : edges()) {
            b.append("| ")
                    .append(e.from())
                    .append(" | ")
                    .append(e.op())
                    .append(" | ")
                    .append(e.to());
            b.append(" | ").append(e.source()).append(" |\n");
        }
        return b.toString();
    }

    static String dot() {
        StringBuilder b = new StringBuilder();
        b.append("// DAT endpoint state machine, generated from EpStateTable by EpStateDiagramTest.\n");
        b.append("digraph ep_states {\n    rankdir=LR;\n    node [shape=ellipse, fontname=\"Helvetica\"];\n");
        b.append("    edge [fontname=\"Helvetica\", fontsize=9];\n");
        for (Edge e : edges()) {
            b.append("    ")
                    .append(e.from())
                    .append(" -> ")
                    .append(e.to())
                    .append(" [label=\"")
                    .append(e.op());
            b.append("\\n").append(e.source()).append("\"];\n");
        }
        return b.append("}\n").toString();
    }

    @Test
    @DisplayName("docs/diagrams/ep-states.md and .dot are the DAT EP state diagram of EpStateTable, each edge "
            + "with its man page (dat_ep_connect(3DAT) ...)")
    void shouldMatchTheEpStateTableWhenTheCommittedDiagramIsRead() throws IOException {
        String m = mermaid();
        assertTrue(
                m.contains("UNCONNECTED --> ACTIVE_CONNECTION_PENDING: dat_ep_connect"),
                "the connect edge with its man page:\n" + m);
        check("ep-states.md", m);
        check("ep-states.dot", dot());
    }

    private static void check(String name, String generated) throws IOException {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs").resolve("diagrams"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("no docs/diagrams above " + Path.of("").toAbsolutePath());
        }
        Path file = p.resolve("docs").resolve("diagrams").resolve(name);
        if (Boolean.getBoolean("diagrams.write")) {
            Files.writeString(file, generated, StandardCharsets.UTF_8);
            return;
        }
        String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(missing)";
        assertEquals(
                generated,
                committed,
                "docs/diagrams/" + name + " no longer matches EpStateTable; run the test "
                        + "with -Ddiagrams.write=true and commit the result");
    }
}
