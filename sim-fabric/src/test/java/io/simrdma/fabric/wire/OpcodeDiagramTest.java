package io.simrdma.fabric.wire;

import io.simrdma.fabric.diagrams.DiagramFiles;
import java.io.IOException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Generates the IBA header layout of every opcode from the {@link Opcode} table (IBA 9.2, table 41)
 * as Mermaid and DOT, and fails when the committed diagrams differ from the table.
 */
class OpcodeDiagramTest {

    static String mermaid() {
        StringBuilder b = new StringBuilder();
        b.append("# IBA headers per opcode\n\n");
        b.append("Generated from the `Opcode` table (sim-fabric `wire`; IBA 9.2, table 41): the transport headers\n");
        b.append("each opcode carries, in wire order, with their byte offsets from the start of the BTH. On RoCEv2\n");
        b.append("they follow Ethernet, IP and UDP (port 4791); a 4-byte ICRC ends every packet.\n");
        b.append("`OpcodeDiagramTest` fails when this file no longer matches the table.\n\n");
        b.append("```mermaid\nflowchart LR\n");
        for (Opcode op : Opcode.values()) {
            String id = "op" + hex(op.value());
            b.append("    ")
                    .append(id)
                    .append("[\"0x")
                    .append(hex(op.value()))
                    .append(' ')
                    .append(op.ibaName())
                    .append("\"]");
            for (HeaderType h : op.headers()) {
                b.append(" --> ")
                        .append(id)
                        .append('_')
                        .append(h.name())
                        .append("[\"")
                        .append(h.name())
                        .append(' ')
                        .append(op.offset(h))
                        .append('-')
                        .append(op.offset(h) + h.length() - 1)
                        .append("\"]");
            }
            if (op.hasPayload()) {
                b.append(" --> ")
                        .append(id)
                        .append("_PAYLOAD[\"payload ")
                        .append(op.headerLength())
                        .append("-\"]");
            }
            b.append(" --> ").append(id).append("_ICRC[\"ICRC 4\"]\n");
        }
        b.append("```\n\n");
        b.append("| opcode | name | headers (offset-last byte) | header bytes | payload |\n|---|---|---|---|---|\n");
        for (Opcode op : Opcode.values()) {
            StringBuilder hs = new StringBuilder();
            for (HeaderType h : op.headers()) {
                hs.append(hs.length() > 0 ? ", " : "")
                        .append(h.name())
                        .append(' ')
                        .append(op.offset(h))
                        .append('-')
                        .append(op.offset(h) + h.length() - 1);
            }
            b.append("| 0x")
                    .append(hex(op.value()))
                    .append(" | ")
                    .append(op.ibaName())
                    .append(" | ")
                    .append(hs)
                    .append(" | ")
                    .append(op.headerLength())
                    .append(" | ")
                    .append(op.hasPayload() ? "yes" : "no")
                    .append(" |\n");
        }
        return b.toString();
    }

    static String dot() {
        StringBuilder b = new StringBuilder();
        b.append(
                "// IBA headers per opcode, generated from the Opcode table (IBA 9.2, table 41) by OpcodeDiagramTest.\n");
        b.append("digraph opcodes {\n    rankdir=LR;\n    node [shape=record, fontname=\"Helvetica\", fontsize=10];\n");
        for (Opcode op : Opcode.values()) {
            b.append("    op")
                    .append(hex(op.value()))
                    .append(" [label=\"0x")
                    .append(hex(op.value()))
                    .append(' ')
                    .append(op.ibaName());
            for (HeaderType h : op.headers()) {
                b.append(" | ")
                        .append(h.name())
                        .append("\\n")
                        .append(op.offset(h))
                        .append('-')
                        .append(op.offset(h) + h.length() - 1);
            }
            if (op.hasPayload()) {
                b.append(" | payload");
            }
            b.append(" | ICRC\"];\n");
        }
        return b.append("}\n").toString();
    }

    private static String hex(int v) {
        return String.format("%02x", v);
    }

    @Test
    @DisplayName("docs/diagrams/opcode-headers.md and .dot are the header layout of every opcode of the Opcode table")
    void shouldMatchTheOpcodeTableWhenTheCommittedDiagramIsRead() throws IOException {
        DiagramFiles.check("opcode-headers.md", mermaid());
        DiagramFiles.check("opcode-headers.dot", dot());
    }
}
