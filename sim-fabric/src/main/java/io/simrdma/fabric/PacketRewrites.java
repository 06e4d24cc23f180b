package io.simrdma.fabric;

import io.netty.buffer.PooledByteBufAllocator;
import io.simrdma.fabric.wire.Aeth;
import io.simrdma.fabric.wire.HeaderType;
import io.simrdma.fabric.wire.Opcode;
import io.simrdma.fabric.wire.Packet;
import io.simrdma.fabric.wire.Psn;

/** The {@link PacketRewrite}s its factories make, one record per field, each printing what it sets. */
final class PacketRewrites {

    private PacketRewrites() {}

    record Chain(PacketRewrite first, PacketRewrite next) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return first.appliesTo(p);
        }

        @Override
        public void apply(Packet p) {
            first.apply(p);
            if (next.appliesTo(p)) {
                next.apply(p);
            }
        }

        @Override
        public String toString() {
            return first + ", " + next;
        }
    }

    record SetPsn(int psn) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return true;
        }

        @Override
        public void apply(Packet p) {
            p.psn(psn);
        }

        @Override
        public String toString() {
            return "psn=" + psn;
        }
    }

    record ShiftPsn(int delta) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return true;
        }

        @Override
        public void apply(Packet p) {
            p.psn(Psn.add(p.psn(), delta));
        }

        @Override
        public String toString() {
            return "psn" + (delta >= 0 ? "+" : "") + delta;
        }
    }

    record SetOpcode(Opcode opcode) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return true;
        }

        @Override
        public void apply(Packet p) {
            p.opcode(opcode);
        }

        @Override
        public String toString() {
            return "opcode=" + opcode.ibaName();
        }
    }

    record SetRethVa(long va) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.RETH);
        }

        @Override
        public void apply(Packet p) {
            p.rethVa(va);
        }

        @Override
        public String toString() {
            return "reth.va=0x" + Long.toHexString(va);
        }
    }

    record SetRethRkey(int rkey) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.RETH);
        }

        @Override
        public void apply(Packet p) {
            p.rethRkey(rkey);
        }

        @Override
        public String toString() {
            return "reth.rkey=0x" + Integer.toHexString(rkey);
        }
    }

    record SetRethLength(int length) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.RETH);
        }

        @Override
        public void apply(Packet p) {
            p.rethLength(length);
        }

        @Override
        public String toString() {
            return "reth.length=" + Integer.toUnsignedString(length);
        }
    }

    record SetSyndrome(int syndrome) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.AETH);
        }

        @Override
        public void apply(Packet p) {
            p.aethSyndrome(syndrome);
        }

        @Override
        public String toString() {
            return "aeth=" + Aeth.describe(syndrome);
        }
    }

    record SetMsn(int msn) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.AETH);
        }

        @Override
        public void apply(Packet p) {
            p.aethMsn(msn);
        }

        @Override
        public String toString() {
            return "aeth.msn=" + msn;
        }
    }

    record SetImmediate(int imm) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return p.opcode().has(HeaderType.IMM_DT);
        }

        @Override
        public void apply(Packet p) {
            p.immediate(imm);
        }

        @Override
        public String toString() {
            return "imm=0x" + Integer.toHexString(imm);
        }
    }

    record SetPayload(int offset, byte[] bytes) implements PacketRewrite {
        @Override
        public boolean appliesTo(Packet p) {
            return offset <= p.payloadLength() - bytes.length;
        }

        @Override
        public void apply(Packet p) {
            p.writePayload(offset, bytes, 0, bytes.length, PooledByteBufAllocator.DEFAULT);
        }

        @Override
        public String toString() {
            return "payload[" + offset + ".." + (offset + bytes.length) + ")";
        }
    }
}
