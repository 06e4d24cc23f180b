package io.simrdma.fabric.internal.rc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.fabric.QpAttrMask;
import io.simrdma.fabric.QpState;
import io.simrdma.fabric.diagrams.DiagramFiles;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Generates the RC QP state diagram from {@link QpTransitions} (IBA 11.2.5.2, table 91) as Mermaid
 * and DOT, and fails when the committed diagrams differ from the table.
 */
class QpStateDiagramTest {

    /** States in the order the diagram lists them. */
    private static final QpState[] STATES = {
        QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE, QpState.ERR
    };

    static String mermaid() {
        StringBuilder b = new StringBuilder();
        b.append("# RC QP state machine\n\n");
        b.append("Generated from `QpTransitions` (sim-fabric `internal.rc`), the table of ibv_modify_qp(3) and IBA\n");
        b.append("11.2.5.2 (table 91). Each edge is a legal `ibv_modify_qp` transition and names the attributes it\n");
        b.append("requires; any state may also move to RESET or ERR with no attribute (noted once, not drawn).\n");
        b.append("The engine itself moves a QP to ERR (a failed work request) and to SQE (a send error).\n");
        b.append("`QpStateDiagramTest` fails when this file no longer matches the table.\n\n");
        b.append("```mermaid\nstateDiagram-v2\n");
        b.append("    [*] --> RESET: ibv_create_qp\n");
        for (QpState from : STATES) {
            for (QpState to : STATES) {
                QpTransitions.Rule r = QpTransitions.rule(from, to);
                if (r == null || to == QpState.RESET || to == QpState.ERR) {
                    continue;
                }
                b.append("    ")
                        .append(from)
                        .append(" --> ")
                        .append(to)
                        .append(": ")
                        .append(label(r))
                        .append('\n');
            }
        }
        b.append("    note right of ERR\n        any state to RESET or ERR\n        with no attribute\n    end note\n");
        b.append("```\n\n");
        b.append("| from | to | required attributes | also accepted |\n|---|---|---|---|\n");
        for (QpState from : STATES) {
            for (QpState to : STATES) {
                QpTransitions.Rule r = QpTransitions.rule(from, to);
                if (r != null) {
                    b.append("| ")
                            .append(from)
                            .append(" | ")
                            .append(to)
                            .append(" | ")
                            .append(names(r.required()))
                            .append(" | ")
                            .append(names(r.optional()))
                            .append(" |\n");
                }
            }
        }
        return b.toString();
    }

    static String dot() {
        StringBuilder b = new StringBuilder();
        b.append(
                "// RC QP state machine, generated from QpTransitions (IBA 11.2.5.2, table 91) by QpStateDiagramTest.\n");
        b.append("digraph qp_states {\n    rankdir=LR;\n    node [shape=ellipse, fontname=\"Helvetica\"];\n");
        b.append("    edge [fontname=\"Helvetica\", fontsize=9];\n");
        for (QpState from : STATES) {
            for (QpState to : STATES) {
                QpTransitions.Rule r = QpTransitions.rule(from, to);
                if (r != null) {
                    b.append("    ")
                            .append(from)
                            .append(" -> ")
                            .append(to)
                            .append(" [label=\"")
                            .append(label(r))
                            .append("\"];\n");
                }
            }
        }
        return b.append("}\n").toString();
    }

    private static String label(QpTransitions.Rule r) {
        return r.required().isEmpty() ? "(no attribute)" : names(r.required());
    }

    private static String names(Set<QpAttrMask> attrs) {
        if (attrs.isEmpty()) {
            return "-";
        }
        return attrs.stream().map(Enum::name).collect(Collectors.toCollection(TreeSet::new)).stream()
                .collect(Collectors.joining(", "));
    }

    @Test
    @DisplayName("docs/diagrams/qp-states.md and .dot are the QP state diagram of QpTransitions (IBA table 91)")
    void shouldMatchTheTransitionTableWhenTheCommittedDiagramIsRead() throws IOException {
        String m = mermaid();
        assertTrue(m.contains("INIT --> RTR: "), "the diagram has the INIT to RTR edge:\n" + m);
        DiagramFiles.check("qp-states.md", m);
        DiagramFiles.check("qp-states.dot", dot());
    }
}
