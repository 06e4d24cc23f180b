package io.simrdma.fabric.view;

import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import java.util.ArrayList;
import java.util.List;

/**
 * The header fields of a packet as a list of (header, field, value), in wire order, as the run
 * viewer shows them when a packet is clicked. The set of headers comes from the opcode table.
 *
 * <p>Thread safety: stateless.
 */
public final class HeaderFields {

    /** One field. */
    public record Field(String header, String name, String value) {}

    private HeaderFields() {}

    /** The fields of {@code p}; the packet is only read. */
    public static List<Field> of(Packet p) {
        Opcode op = p.opcode();
        List<Field> f = new ArrayList<>(16);
        String bth = "BTH";
        f.add(new Field(bth, "OpCode", String.format("0x%02x %s", op.value(), op.ibaName())));
        f.add(new Field(bth, "SE", p.solicited() ? "1" : "0"));
        f.add(new Field(bth, "M", p.migReq() ? "1" : "0"));
        f.add(new Field(bth, "PadCnt", Integer.toString(p.padCount())));
        f.add(new Field(bth, "TVer", Integer.toString(p.transportVersion())));
        f.add(new Field(bth, "P_Key", String.format("0x%04x", p.pkey())));
        f.add(new Field(bth, "DestQP", String.format("0x%06x", p.destQp())));
        f.add(new Field(bth, "AckReq", p.ackReq() ? "1" : "0"));
        f.add(new Field(bth, "PSN", Integer.toString(p.psn())));
        if (op.has(HeaderType.DETH)) {
            f.add(new Field("DETH", "Q_Key", String.format("0x%08x", p.dethQkey())));
            f.add(new Field("DETH", "SrcQP", String.format("0x%06x", p.dethSrcQp())));
        }
        if (op.has(HeaderType.RETH)) {
            f.add(new Field("RETH", "VA", String.format("0x%016x", p.rethVa())));
            f.add(new Field("RETH", "R_Key", String.format("0x%08x", p.rethRkey())));
            f.add(new Field("RETH", "DMA Length", Long.toString(p.rethLength() & 0xFFFFFFFFL)));
        }
        if (op.has(HeaderType.ATOMIC_ETH)) {
            f.add(new Field("AtomicETH", "VA", String.format("0x%016x", p.atomicVa())));
            f.add(new Field("AtomicETH", "R_Key", String.format("0x%08x", p.atomicRkey())));
            f.add(new Field(
                    "AtomicETH",
                    op == Opcode.RC_CMP_SWAP ? "Swap Data" : "Add Data",
                    Long.toString(p.atomicSwapOrAdd())));
            f.add(new Field("AtomicETH", "Compare Data", Long.toString(p.atomicCompare())));
        }
        if (op.has(HeaderType.AETH)) {
            f.add(new Field(
                    "AETH", "Syndrome", String.format("0x%02x %s", p.aethSyndrome(), Aeth.describe(p.aethSyndrome()))));
            f.add(new Field("AETH", "MSN", Integer.toString(p.aethMsn())));
        }
        if (op.has(HeaderType.ATOMIC_ACK_ETH)) {
            f.add(new Field("AtomicAckETH", "Original Remote Data", Long.toString(p.atomicAckOriginal())));
        }
        if (op.has(HeaderType.IMM_DT)) {
            f.add(new Field("ImmDt", "Immediate Data", String.format("0x%08x", p.immediate())));
        }
        if (op.has(HeaderType.IETH)) {
            f.add(new Field("IETH", "R_Key", String.format("0x%08x", p.iethRkey())));
        }
        if (op.hasPayload()) {
            f.add(new Field("Payload", "Length", p.payloadLength() + " bytes"));
        }
        return f;
    }
}
