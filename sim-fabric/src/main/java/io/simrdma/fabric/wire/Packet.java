package io.simrdma.fabric.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.simrdma.fabric.sched.Task;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * One InfiniBand transport packet: its headers in their real wire encoding, and its payload.
 *
 * <p>Headers live in a byte array laid out exactly as on the wire, BTH first, then the extension
 * headers {@link Opcode#headers() the opcode} carries in IBA order. Accessors read and write the
 * fields in place (a flyweight), so a capture or the TCP codec copies the header bytes as they
 * are. Field layout of the BTH (IBA 9.2):
 * <pre>
 *  byte 0        1                    2   3     4            5  6  7      8          9  10 11
 *     +--------+-------------------+---------+------------+---------+----------+---------+
 *     | OpCode |SE|M|Pad|TVer(4)   | P_Key   |F|B| resv6  | DestQP  |A| resv7  |  PSN    |
 *     +--------+-------------------+---------+------------+---------+----------+---------+
 * </pre>
 * RETH: VA (8) R_Key (4) DMA length (4). AtomicETH: VA (8) R_Key (4) swap/add (8) compare (8).
 * AETH: syndrome (1) MSN (3). AtomicAckETH: original data (8). ImmDt (4). IETH: R_Key (4).
 * DETH: Q_Key (4) reserved (1) SrcQP (3). All fields big-endian.
 *
 * <p>Payload: either references to the sender's registered memory (in-process links: the one copy
 * of a transfer happens when the receiver places the data), or a Netty buffer the packet owns
 * (received from TCP, or materialized by a fault). The pad bytes the BTH counts are implied.
 *
 * <p>Packets are pooled. The holder of a packet releases it exactly once with {@link #release()};
 * trace listeners and fault predicates see a packet only for the duration of a call.
 *
 * <p>Thread safety: a packet has one owner at a time; ownership passes through executors.
 */
public final class Packet extends Task {

    /** Room for the longest header combination plus margin. */
    public static final int MAX_HEADER_LENGTH = 64;

    /** Length of the invariant CRC trailer on the wire. */
    public static final int ICRC_LENGTH = 4;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private static final PacketPool<Packet> POOL = new PacketPool<>(Packet::new);

    private final byte[] header = new byte[MAX_HEADER_LENGTH];
    private Opcode opcode;

    private int payloadLength;
    private int segCount;
    private ByteBuffer[] segBuf = new ByteBuffer[4];
    private int[] segOff = new int[4];
    private int[] segLen = new int[4];
    private ByteBuf owned;
    /** The buffer the segments point into when they are received bytes (a burst from a socket): released with the packet. */
    private ByteBuf pin;

    private boolean icrcPresent;
    private int icrc;

    private Gid sourceGid;
    private Gid destinationGid;
    private PacketSink sink;
    private boolean retransmission;
    private boolean injected;
    private long carrierTag;
    private boolean inUse;

    // ---- segmentation offload: this packet may stand for a run of consecutive packets of one
    // message (a burst); the header and payload view are those of the current one of them.
    /** Packets of the burst from the current one on (1: an ordinary packet). */
    private int burstLeft = 1;
    /** Payload bytes of each packet of the burst but the last (the path MTU). */
    private int burstMtu;
    /** Payload bytes from the current packet's first byte to the end of the burst. */
    private int burstBytes;
    /** Payload offset of the current packet within the segments. */
    private int payloadBase;
    /** The last packet's opcode, its ImmDt, IETH R_Key or AETH (syndrome << 24 | MSN), SE and AckReq. */
    private Opcode burstLastOpcode;

    private int burstLastExtra;
    private boolean burstLastSolicited;
    private boolean burstLastAckReq;

    private Packet() {}

    /** A packet from the pool with a zeroed header for {@code opcode} and no payload. */
    public static Packet allocate(Opcode opcode) {
        Packet p = POOL.get();
        p.inUse = true;
        p.setOpcodeAndClear(opcode);
        return p;
    }

    /**
     * Builds a packet from wire bytes: {@code headerBytes} (which must hold at least the opcode's
     * header length) and a payload buffer whose ownership passes to the packet.
     *
     * @return null if the first byte is not an opcode simrdma knows, or the header is short
     */
    public static Packet fromWire(byte[] headerBytes, int headerLength, ByteBuf payload) {
        Opcode op = Opcode.fromValue(headerBytes[0] & 0xFF);
        if (op == null || headerLength < op.headerLength()) {
            return null;
        }
        Packet p = received(op, payload);
        System.arraycopy(headerBytes, 0, p.header, 0, op.headerLength());
        return p;
    }

    /**
     * {@link #fromWire(byte[], int, ByteBuf)} with the header read in place from the
     * {@code headerLength} bytes at {@code index} of {@code wire} (whose indexes do not change),
     * straight into the packet's header.
     */
    public static Packet fromWire(ByteBuf wire, int index, int headerLength, ByteBuf payload) {
        Opcode op = Opcode.fromValue(wire.getUnsignedByte(index));
        if (op == null || headerLength < op.headerLength()) {
            return null;
        }
        Packet p = received(op, payload);
        wire.getBytes(index, p.header, 0, op.headerLength());
        return p;
    }

    private static Packet received(Opcode op, ByteBuf payload) {
        Packet p = POOL.get();
        p.inUse = true;
        p.opcode = op;
        p.owned = payload;
        p.payloadLength = payload == null ? 0 : payload.readableBytes();
        return p;
    }

    private void setOpcodeAndClear(Opcode op) {
        this.opcode = op;
        java.util.Arrays.fill(header, 0, op.headerLength(), (byte) 0);
        header[0] = (byte) op.value();
    }

    /** Returns this packet to the pool, releasing an owned payload. Call exactly once. */
    public void release() {
        if (!inUse) {
            throw new IllegalStateException("packet released twice");
        }
        inUse = false;
        if (owned != null) {
            owned.release();
            owned = null;
        }
        unpin();
        for (int i = 0; i < segCount; i++) {
            segBuf[i] = null;
        }
        segCount = 0;
        payloadLength = 0;
        icrcPresent = false;
        sourceGid = null;
        destinationGid = null;
        sink = null;
        retransmission = false;
        injected = false;
        carrierTag = 0;
        burstLeft = 1;
        burstLastOpcode = null;
        payloadBase = 0;
        POOL.put(this);
    }

    /** A new packet with the same headers, routing and payload (owned payloads are shared, retained). */
    public Packet duplicate() {
        Packet p = allocate(opcode);
        System.arraycopy(header, 0, p.header, 0, opcode.headerLength());
        for (int i = 0; i < segCount; i++) {
            p.addSegment(segBuf[i], segOff[i], segLen[i]);
        }
        if (owned != null) {
            p.owned = owned.retainedDuplicate();
            p.payloadLength = payloadLength;
        }
        if (pin != null) {
            p.pin = pin.retain();
        }
        p.icrcPresent = icrcPresent;
        p.icrc = icrc;
        p.sourceGid = sourceGid;
        p.destinationGid = destinationGid;
        p.retransmission = retransmission;
        p.injected = injected;
        p.carrierTag = carrierTag;
        p.payloadBase = payloadBase;
        p.payloadLength = payloadLength;
        p.burstLeft = burstLeft;
        p.burstMtu = burstMtu;
        p.burstBytes = burstBytes;
        p.burstLastOpcode = burstLastOpcode;
        p.burstLastExtra = burstLastExtra;
        p.burstLastSolicited = burstLastSolicited;
        p.burstLastAckReq = burstLastAckReq;
        return p;
    }

    // ------------------------------------------------------------------ opcode and header bytes

    public Opcode opcode() {
        return opcode;
    }

    /**
     * Changes the opcode, as a rewriting fault does: the BTH keeps its other fields, each
     * extension header both opcodes carry keeps its bytes (moved to where the new opcode puts
     * it), headers only the new opcode carries are zero, and an opcode without payload drops the
     * payload (and its pad). Allocates; not for the engine's hot path.
     */
    public Packet opcode(Opcode op) {
        java.util.Objects.requireNonNull(op, "opcode");
        if (op == opcode) {
            return this;
        }
        Opcode was = opcode;
        byte[] old = java.util.Arrays.copyOf(header, was.headerLength());
        opcode = op;
        header[0] = (byte) op.value();
        int bth = HeaderType.BTH.length();
        java.util.Arrays.fill(header, bth, op.headerLength(), (byte) 0);
        for (HeaderType h : HeaderType.values()) {
            if (h != HeaderType.BTH && op.has(h) && was.has(h)) {
                System.arraycopy(old, was.offset(h), header, op.offset(h), h.length());
            }
        }
        if (!op.hasPayload()) {
            clearPayload();
            updatePadCount();
        }
        return this;
    }

    /** Header length in bytes for this packet's opcode. */
    public int headerLength() {
        return opcode.headerLength();
    }

    /** Header byte {@code i}. */
    public byte headerByte(int i) {
        return header[i];
    }

    /** Copies the header bytes into {@code dst}. */
    public void copyHeaderTo(ByteBuf dst) {
        dst.writeBytes(header, 0, opcode.headerLength());
    }

    /** Copies the header bytes into {@code dst} at {@code offset}. */
    public void copyHeaderTo(byte[] dst, int offset) {
        System.arraycopy(header, 0, dst, offset, opcode.headerLength());
    }

    /** Flips one bit of the header or payload (a corrupting link); materializes the payload first. */
    public void flipBit(long bitIndex, ByteBufAllocator alloc) {
        int headerBits = opcode.headerLength() * 8;
        if (bitIndex < headerBits) {
            header[(int) (bitIndex >>> 3)] ^= (byte) (1 << (bitIndex & 7));
            return;
        }
        long payloadBit = bitIndex - headerBits;
        if (payloadLength == 0) {
            return;
        }
        materialize(alloc);
        int byteIndex = (int) ((payloadBit >>> 3) % payloadLength);
        int at = owned.readerIndex() + byteIndex;
        owned.setByte(at, owned.getByte(at) ^ (1 << (payloadBit & 7)));
    }

    // ------------------------------------------------------------------ BTH

    public boolean solicited() {
        return (header[1] & 0x80) != 0;
    }

    public Packet solicited(boolean se) {
        header[1] = (byte) (se ? header[1] | 0x80 : header[1] & ~0x80);
        return this;
    }

    public boolean migReq() {
        return (header[1] & 0x40) != 0;
    }

    public int padCount() {
        return (header[1] >>> 4) & 3;
    }

    public int transportVersion() {
        return header[1] & 0x0F;
    }

    public int pkey() {
        return ((header[2] & 0xFF) << 8) | (header[3] & 0xFF);
    }

    public Packet pkey(int pkey) {
        header[2] = (byte) (pkey >>> 8);
        header[3] = (byte) pkey;
        return this;
    }

    public int destQp() {
        return get24(5);
    }

    public Packet destQp(int qpn) {
        put24(5, qpn);
        return this;
    }

    public boolean ackReq() {
        return (header[8] & 0x80) != 0;
    }

    public Packet ackReq(boolean ackReq) {
        header[8] = (byte) (ackReq ? 0x80 : 0);
        return this;
    }

    public int psn() {
        return get24(9);
    }

    public Packet psn(int psn) {
        put24(9, psn);
        return this;
    }

    // ------------------------------------------------------------------ RETH

    public long rethVa() {
        return (long) LONG.get(header, off(HeaderType.RETH));
    }

    public int rethRkey() {
        return (int) INT.get(header, off(HeaderType.RETH) + 8);
    }

    public int rethLength() {
        return (int) INT.get(header, off(HeaderType.RETH) + 12);
    }

    public Packet rethVa(long va) {
        LONG.set(header, off(HeaderType.RETH), va);
        return this;
    }

    public Packet rethRkey(int rkey) {
        INT.set(header, off(HeaderType.RETH) + 8, rkey);
        return this;
    }

    public Packet rethLength(int length) {
        INT.set(header, off(HeaderType.RETH) + 12, length);
        return this;
    }

    public Packet reth(long va, int rkey, int length) {
        int o = off(HeaderType.RETH);
        LONG.set(header, o, va);
        INT.set(header, o + 8, rkey);
        INT.set(header, o + 12, length);
        return this;
    }

    // ------------------------------------------------------------------ AtomicETH

    public long atomicVa() {
        return (long) LONG.get(header, off(HeaderType.ATOMIC_ETH));
    }

    public int atomicRkey() {
        return (int) INT.get(header, off(HeaderType.ATOMIC_ETH) + 8);
    }

    /** Swap data (compare and swap) or add data (fetch and add). */
    public long atomicSwapOrAdd() {
        return (long) LONG.get(header, off(HeaderType.ATOMIC_ETH) + 12);
    }

    public long atomicCompare() {
        return (long) LONG.get(header, off(HeaderType.ATOMIC_ETH) + 20);
    }

    public Packet atomicEth(long va, int rkey, long swapOrAdd, long compare) {
        int o = off(HeaderType.ATOMIC_ETH);
        LONG.set(header, o, va);
        INT.set(header, o + 8, rkey);
        LONG.set(header, o + 12, swapOrAdd);
        LONG.set(header, o + 20, compare);
        return this;
    }

    // ------------------------------------------------------------------ AETH and AtomicAckETH

    public int aethSyndrome() {
        return header[off(HeaderType.AETH)] & 0xFF;
    }

    public int aethMsn() {
        return get24(off(HeaderType.AETH) + 1);
    }

    public Packet aethSyndrome(int syndrome) {
        header[off(HeaderType.AETH)] = (byte) syndrome;
        return this;
    }

    public Packet aethMsn(int msn) {
        put24(off(HeaderType.AETH) + 1, msn);
        return this;
    }

    public Packet aeth(int syndrome, int msn) {
        int o = off(HeaderType.AETH);
        header[o] = (byte) syndrome;
        put24(o + 1, msn);
        return this;
    }

    public long atomicAckOriginal() {
        return (long) LONG.get(header, off(HeaderType.ATOMIC_ACK_ETH));
    }

    public Packet atomicAckOriginal(long original) {
        LONG.set(header, off(HeaderType.ATOMIC_ACK_ETH), original);
        return this;
    }

    // ------------------------------------------------------------------ ImmDt, IETH, DETH

    public int immediate() {
        return (int) INT.get(header, off(HeaderType.IMM_DT));
    }

    public Packet immediate(int imm) {
        INT.set(header, off(HeaderType.IMM_DT), imm);
        return this;
    }

    public int iethRkey() {
        return (int) INT.get(header, off(HeaderType.IETH));
    }

    public Packet iethRkey(int rkey) {
        INT.set(header, off(HeaderType.IETH), rkey);
        return this;
    }

    public int dethQkey() {
        return (int) INT.get(header, off(HeaderType.DETH));
    }

    public int dethSrcQp() {
        return get24(off(HeaderType.DETH) + 5);
    }

    public Packet deth(int qkey, int srcQp) {
        int o = off(HeaderType.DETH);
        INT.set(header, o, qkey);
        header[o + 4] = 0;
        put24(o + 5, srcQp);
        return this;
    }

    // ------------------------------------------------------------------ payload

    /** Payload length in bytes, without pad. */
    public int payloadLength() {
        return payloadLength;
    }

    /** Appends a reference to {@code len} bytes of {@code buf} at absolute index {@code off}; nothing is copied. */
    public Packet addSegment(ByteBuffer buf, int off, int len) {
        if (owned != null) {
            throw new IllegalStateException("packet already owns its payload");
        }
        if (len == 0) {
            return this;
        }
        if (segCount == segBuf.length) {
            int n = segCount * 2;
            segBuf = java.util.Arrays.copyOf(segBuf, n);
            segOff = java.util.Arrays.copyOf(segOff, n);
            segLen = java.util.Arrays.copyOf(segLen, n);
        }
        segBuf[segCount] = buf;
        segOff[segCount] = off;
        segLen[segCount] = len;
        segCount++;
        payloadLength += len;
        return this;
    }

    /** Sets the BTH pad count from the payload length (payload padded to 4 bytes on the wire). */
    public Packet updatePadCount() {
        int pad = (-payloadLength) & 3;
        header[1] = (byte) ((header[1] & ~0x30) | (pad << 4));
        return this;
    }

    /**
     * Copies {@code len} payload bytes starting at payload offset {@code from} into {@code dst} at
     * absolute index {@code dstIndex}. This is the single copy of an in-process transfer. For a
     * {@link #burst}, offsets count from the current packet's first byte and the range may run on
     * into the packets after it.
     */
    public void copyPayload(int from, ByteBuffer dst, int dstIndex, int len) {
        // A burst's later packets follow the current one: a run of them is copied at once.
        int available = burstBytes();
        if (from < 0 || len < 0 || from > available - len) {
            throw new IndexOutOfBoundsException("payload range " + from + "+" + len + " of " + available);
        }
        if (len == 0) {
            // Nothing to copy; the segment walk below must not look past the last segment.
            return;
        }
        if (owned != null) {
            int src = owned.readerIndex() + from;
            if (dst.hasArray()) {
                owned.getBytes(src, dst.array(), dst.arrayOffset() + dstIndex, len);
            } else {
                for (int done = 0; done < len; ) {
                    int n = Math.min(len - done, 8192);
                    dst.put(dstIndex + done, owned.nioBuffer(src + done, n), 0, n);
                    done += n;
                }
            }
            return;
        }
        long where = locate(from);
        int seg = (int) (where >>> 32);
        int skip = (int) where;
        int remaining = len;
        int at = dstIndex;
        while (remaining > 0) {
            int n = Math.min(remaining, segLen[seg] - skip);
            dst.put(at, segBuf[seg], segOff[seg] + skip, n);
            at += n;
            remaining -= n;
            skip = 0;
            seg++;
        }
    }

    // ------------------------------------------------------------------ segmentation offload

    /**
     * Makes this packet, built as the first of {@code packets} consecutive packets of one message
     * and given the payload of all of them, stand for the whole run: a burst, as a NIC's
     * segmentation offload carries one large frame to be cut into MTU-sized packets. An in-process
     * link carries a burst as one unit when nothing needs its packets one by one (no fault rule,
     * trace listener or capture); the receiver walks it packet by packet with {@link
     * #nextInBurst()} or in bulk with {@link #skipInBurst(int)}, and {@link #splitFirst()} turns it
     * back into ordinary packets. The header and {@link #payloadLength()} are always those of the
     * current packet; every packet but the last carries {@code mtu} bytes and the middle opcode of
     * the message's kind (SEND, RDMA WRITE or READ response), with no AckReq or SE bit.
     *
     * @param lastOpcode the last packet's opcode (a Middle opcode if the run stops before the message's end)
     * @param lastExtra the last packet's ImmDt, IETH R_Key, or AETH as {@code syndrome << 24 | msn}, if its opcode has one
     * @throws IllegalArgumentException if the payload does not fill {@code packets - 1} MTUs and some of the last
     */
    public Packet burst(
            int packets, int mtu, Opcode lastOpcode, int lastExtra, boolean lastSolicited, boolean lastAckReq) {
        long full = (long) (packets - 1) * mtu;
        if (packets < 2
                || mtu <= 0
                || owned != null
                || burstLeft != 1
                || payloadLength <= full
                || payloadLength - full > mtu
                || !opcode.hasPayload()
                || opcode.isLast()) {
            throw new IllegalArgumentException("no burst of " + packets + " packets of " + mtu + " bytes from " + this);
        }
        burstLeft = packets;
        burstMtu = mtu;
        burstBytes = payloadLength;
        payloadBase = 0;
        payloadLength = mtu;
        burstLastOpcode = java.util.Objects.requireNonNull(lastOpcode, "lastOpcode");
        burstLastExtra = lastExtra;
        burstLastSolicited = lastSolicited;
        burstLastAckReq = lastAckReq;
        ackReq(false);
        solicited(false);
        updatePadCount();
        return this;
    }

    /** Packets this packet stands for from the current one on: 1 for an ordinary packet, more for a burst. */
    public int burstPackets() {
        return burstLeft;
    }

    /** True if this packet stands for more than one (see {@link #burst}). */
    public boolean isBurst() {
        return burstLeft > 1;
    }

    /** Payload bytes from the current packet on to the end of the burst ({@link #payloadLength()} if not a burst). */
    public int burstBytes() {
        return burstLeft > 1 ? burstBytes : payloadLength;
    }

    /** The payload bytes each packet of the burst but the last carries. */
    public int burstMtu() {
        return burstMtu;
    }

    /** The opcode of the burst's last packet (this packet's opcode if it is not a burst). */
    public Opcode burstLastOpcode() {
        return burstLeft > 1 ? burstLastOpcode : opcode;
    }

    /** Whether the burst's last packet asks for an acknowledgement. */
    public boolean burstLastAckReq() {
        return burstLeft > 1 ? burstLastAckReq : ackReq();
    }

    /** Moves to the burst's next packet: its header and payload become this packet's. */
    public void nextInBurst() {
        skipInBurst(1);
    }

    /**
     * Moves {@code k} packets on in the burst ({@code 1 <= k < burstPackets()}): the header
     * (opcode, PSN advanced by {@code k}, flags, the last packet's extension header) and the
     * payload view become those of that packet, as if it had arrived alone.
     */
    public void skipInBurst(int k) {
        if (k < 1 || k >= burstLeft) {
            throw new IllegalArgumentException("cannot skip " + k + " of " + burstLeft + " packets");
        }
        int nextPsn = Psn.add(psn(), k);
        int skipped = k * burstMtu;
        payloadBase += skipped;
        burstBytes -= skipped;
        burstLeft -= k;
        boolean last = burstLeft == 1;
        Opcode op = last ? burstLastOpcode : middleOf(opcode);
        opcode = op;
        header[0] = (byte) op.value();
        psn(nextPsn);
        payloadLength = last ? burstBytes : burstMtu;
        ackReq(last && burstLastAckReq);
        solicited(last && burstLastSolicited);
        updatePadCount();
        if (last) {
            dropPayloadBefore(payloadBase);
            if (op.hasImmediate()) {
                immediate(burstLastExtra);
            } else if (op.hasInvalidate()) {
                iethRkey(burstLastExtra);
            } else if (op.has(HeaderType.AETH)) {
                aeth(burstLastExtra >>> 24, burstLastExtra & 0xFFFFFF);
            }
        }
    }

    /**
     * Takes the current packet of a burst out as an ordinary packet of its own (from the pool,
     * referencing the same payload bytes, with the same routing and flags) and moves this burst
     * to its next packet. For a link or port that must see the packets one by one.
     */
    public Packet splitFirst() {
        if (burstLeft < 2) {
            throw new IllegalStateException("not a burst: " + this);
        }
        Packet q = allocate(opcode);
        System.arraycopy(header, 0, q.header, 0, opcode.headerLength());
        int skip = payloadBase;
        int remaining = payloadLength;
        for (int i = 0; i < segCount && remaining > 0; i++) {
            if (skip >= segLen[i]) {
                skip -= segLen[i];
                continue;
            }
            int n = Math.min(remaining, segLen[i] - skip);
            q.addSegment(segBuf[i], segOff[i] + skip, n);
            remaining -= n;
            skip = 0;
        }
        if (pin != null) {
            q.pin = pin.retain();
        }
        q.sourceGid = sourceGid;
        q.destinationGid = destinationGid;
        q.retransmission = retransmission;
        q.injected = injected;
        q.carrierTag = carrierTag;
        nextInBurst();
        return q;
    }

    /** Forgets the first {@code bytes} bytes of the referenced payload (the segments move down). */
    private void dropPayloadBefore(int bytes) {
        int skip = bytes;
        int kept = 0;
        for (int i = 0; i < segCount; i++) {
            int len = segLen[i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            segBuf[kept] = segBuf[i];
            segOff[kept] = segOff[i] + skip;
            segLen[kept] = len - skip;
            skip = 0;
            kept++;
        }
        for (int i = kept; i < segCount; i++) {
            segBuf[i] = null;
        }
        segCount = kept;
        payloadBase = 0;
    }

    private static Opcode middleOf(Opcode op) {
        if (op.isWrite()) {
            return Opcode.RC_RDMA_WRITE_MIDDLE;
        }
        if (op.isSend()) {
            return Opcode.RC_SEND_MIDDLE;
        }
        return Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
    }

    /** Copies {@code len} payload bytes starting at payload offset {@code from} into {@code dst} at {@code dstOffset}. */
    public void copyPayload(int from, byte[] dst, int dstOffset, int len) {
        copyPayload(from, ByteBuffer.wrap(dst), dstOffset, len);
    }

    /** Writes the payload bytes (without pad) into {@code dst}: one copy from the source memory. */
    public void writePayloadTo(ByteBuf dst) {
        if (owned != null) {
            dst.writeBytes(owned, owned.readerIndex(), payloadLength);
            return;
        }
        for (int i = 0; i < segCount; i++) {
            ByteBuffer s = segBuf[i];
            dst.writeBytes(s.slice(segOff[i], segLen[i]));
        }
    }

    /**
     * Wraps the payload references without copying: a buffer that reads the sender's memory,
     * for a transport that writes it straight to its socket. The caller releases it.
     */
    public ByteBuf payloadView(ByteBufAllocator alloc) {
        if (owned != null) {
            return owned.retainedSlice(owned.readerIndex(), payloadLength);
        }
        if (segCount == 1) {
            return io.netty.buffer.Unpooled.wrappedBuffer(segBuf[0].slice(segOff[0], segLen[0]));
        }
        io.netty.buffer.CompositeByteBuf c = alloc.compositeBuffer(Math.max(2, segCount));
        for (int i = 0; i < segCount; i++) {
            c.addComponent(true, io.netty.buffer.Unpooled.wrappedBuffer(segBuf[i].slice(segOff[i], segLen[i])));
        }
        return c;
    }

    /**
     * {@link #payloadView} of {@code len} bytes from payload offset {@code from}, counted from the
     * current packet's first byte; for a {@link #burst} the range may run on into the packets after
     * it (a transport writing a run of the burst as one frame). Never copies; the caller releases
     * the result.
     *
     * @throws IndexOutOfBoundsException if the range is not within the burst's payload
     */
    public ByteBuf payloadView(ByteBufAllocator alloc, int from, int len) {
        int available = burstBytes();
        if (from < 0 || len <= 0 || from > available - len) {
            throw new IndexOutOfBoundsException("payload range " + from + "+" + len + " of " + available);
        }
        if (owned != null) {
            return owned.retainedSlice(owned.readerIndex() + from, len);
        }
        long where = locate(from);
        int seg = (int) (where >>> 32);
        int skip = (int) where;
        if (len <= segLen[seg] - skip) {
            return io.netty.buffer.Unpooled.wrappedBuffer(segBuf[seg].slice(segOff[seg] + skip, len));
        }
        io.netty.buffer.CompositeByteBuf c = alloc.compositeBuffer(Math.max(2, segCount - seg));
        for (int remaining = len; remaining > 0; seg++) {
            int n = Math.min(remaining, segLen[seg] - skip);
            c.addComponent(true, io.netty.buffer.Unpooled.wrappedBuffer(segBuf[seg].slice(segOff[seg] + skip, n)));
            remaining -= n;
            skip = 0;
        }
        return c;
    }

    /**
     * The memory a {@link #payloadView(ByteBufAllocator, int, int) payload range} lies in, if it
     * lies whole in one referenced segment (the sender's memory, not a buffer the packet owns):
     * that segment's buffer, the range starting at absolute index {@link #payloadRegionIndex}
     * of it. Null otherwise (owned payload, or a range over several segments). For a transport
     * that keeps views of the memory it sends from instead of making one per frame.
     *
     * @throws IndexOutOfBoundsException if the range is not within the burst's payload
     */
    public ByteBuffer payloadRegion(int from, int len) {
        int seg = segmentOf(from, len);
        return seg < 0 ? null : segBuf[seg];
    }

    /** Where payload byte {@code from} lies in {@link #payloadRegion}'s buffer (an absolute index). */
    public int payloadRegionIndex(int from) {
        long where = locate(from);
        int seg = (int) (where >>> 32);
        int skip = (int) where;
        return segOff[seg] + skip;
    }

    /**
     * The referenced segment that holds payload byte {@code from} and the byte's offset in that
     * segment, as {@code (segment << 32) | offset}. Referenced payload only.
     */
    private long locate(int from) {
        int skip = payloadBase + from;
        int seg = 0;
        while (skip >= segLen[seg]) {
            skip -= segLen[seg];
            seg++;
        }
        return ((long) seg << 32) | skip;
    }

    /** The referenced segment that holds the whole range, or -1 (owned payload, several segments). */
    private int segmentOf(int from, int len) {
        int available = burstBytes();
        if (from < 0 || len <= 0 || from > available - len) {
            throw new IndexOutOfBoundsException("payload range " + from + "+" + len + " of " + available);
        }
        if (owned != null) {
            return -1;
        }
        long where = locate(from);
        int seg = (int) (where >>> 32);
        int skip = (int) where;
        return len <= segLen[seg] - skip ? seg : -1;
    }

    /**
     * Makes the readable bytes of {@code received} this packet's payload, referenced as a segment
     * (as a sender's memory is), and takes ownership of {@code received}: it is released with the
     * packet, and shared (retained) by its {@link #duplicate duplicates} and {@link #splitFirst
     * split-off packets}. For a transport that receives a {@link #burst}'s bytes into a buffer of
     * its own and hands them on without a copy; bytes gathered from several reads (a composite
     * buffer) become one segment per part. Allocates a {@link ByteBuffer} view per part.
     *
     * @throws IllegalStateException if the packet already has a payload
     */
    public Packet addReceivedSegment(ByteBuf received) {
        if (owned != null || segCount != 0 || pin != null) {
            received.release();
            throw new IllegalStateException("packet already has a payload");
        }
        int len = received.readableBytes();
        pin = received;
        if (received.nioBufferCount() == 1) {
            return addSegment(received.nioBuffer(received.readerIndex(), len), 0, len);
        }
        // bytes gathered from several reads: one segment per part, never merged (copied)
        for (ByteBuffer part : received.nioBuffers(received.readerIndex(), len)) {
            addSegment(part, part.position(), part.remaining());
        }
        return this;
    }

    private void unpin() {
        if (pin != null) {
            pin.release();
            pin = null;
        }
    }

    /** The ImmDt, IETH R_Key or AETH ({@code syndrome << 24 | msn}) the burst's last packet carries, if its opcode has one. */
    public int burstLastExtra() {
        return burstLeft > 1 ? burstLastExtra : 0;
    }

    /** Whether the burst's last packet has the SE bit (this packet's if it is not a burst). */
    public boolean burstLastSolicited() {
        return burstLeft > 1 ? burstLastSolicited : solicited();
    }

    /** Copies referenced payload into a buffer the packet owns, so it no longer reads the sender's memory. */
    public void materialize(ByteBufAllocator alloc) {
        if (owned != null) {
            return;
        }
        ByteBuf b = alloc.buffer(Math.max(payloadLength, 1));
        writePayloadTo(b);
        for (int i = 0; i < segCount; i++) {
            segBuf[i] = null;
        }
        segCount = 0;
        unpin();
        owned = b;
    }

    /** True if the payload is a buffer this packet owns. */
    public boolean ownsPayload() {
        return owned != null;
    }

    /**
     * Overwrites {@code len} payload bytes at payload offset {@code offset} with those of
     * {@code src} at {@code srcOffset}, as a rewriting fault does. The payload is first copied
     * into a buffer of this packet's own, so the sender's memory and any copy sharing the
     * payload ({@link #duplicate()}) are never changed. Allocates; not for the hot path.
     *
     * @throws IndexOutOfBoundsException if the range is not within the payload
     */
    public Packet writePayload(int offset, byte[] src, int srcOffset, int len, ByteBufAllocator alloc) {
        if (offset < 0 || len < 0 || offset > payloadLength - len) {
            throw new IndexOutOfBoundsException("payload range " + offset + "+" + len + " of " + payloadLength);
        }
        ByteBuf copy = alloc.buffer(Math.max(payloadLength, 1));
        writePayloadTo(copy);
        clearPayload();
        owned = copy;
        payloadLength = copy.readableBytes();
        owned.setBytes(owned.readerIndex() + offset, src, srcOffset, len);
        return this;
    }

    /** Drops the payload: references forgotten, an owned buffer released. */
    private void clearPayload() {
        if (owned != null) {
            owned.release();
            owned = null;
        }
        unpin();
        for (int i = 0; i < segCount; i++) {
            segBuf[i] = null;
        }
        segCount = 0;
        payloadLength = 0;
    }

    // ------------------------------------------------------------------ ICRC

    /**
     * Computes and attaches the invariant CRC: CRC-32 over the transport headers, with the BTH's
     * variant byte 4 (FECN, BECN, reserved) masked to ones as IBA 7.8.1 prescribes, then the
     * payload and its pad. (simrdma packets carry no LRH or IP header to cover.)
     */
    public void attachIcrc() {
        icrc = computeIcrc();
        icrcPresent = true;
    }

    /** True if this packet carries an ICRC; links attach one only when they may corrupt packets. */
    public boolean icrcPresent() {
        return icrcPresent;
    }

    public int icrc() {
        return icrc;
    }

    /** Sets the ICRC read from the wire. */
    public void icrc(int value) {
        icrc = value;
        icrcPresent = true;
    }

    /** True if no ICRC is attached, or the attached one matches the packet. */
    public boolean icrcValid() {
        return !icrcPresent || computeIcrc() == icrc;
    }

    private int computeIcrc() {
        CRC32 crc = new CRC32();
        int hl = opcode.headerLength();
        byte saved = header[4];
        header[4] = (byte) 0xFF;
        crc.update(header, 0, hl);
        header[4] = saved;
        if (owned != null) {
            crc.update(owned.nioBuffer(owned.readerIndex(), payloadLength));
        } else {
            for (int i = 0; i < segCount; i++) {
                crc.update(segBuf[i].slice(segOff[i], segLen[i]));
            }
        }
        int pad = padCount();
        for (int i = 0; i < pad; i++) {
            crc.update(0);
        }
        return (int) crc.getValue();
    }

    // ------------------------------------------------------------------ routing and delivery

    /** GID of the sending port (the network header of a real packet carries it). */
    public Gid sourceGid() {
        return sourceGid;
    }

    public Gid destinationGid() {
        return destinationGid;
    }

    public Packet route(Gid source, Gid destination) {
        this.sourceGid = source;
        this.destinationGid = destination;
        return this;
    }

    /** True if the requester sent this packet again after a timeout or NAK. */
    public boolean retransmission() {
        return retransmission;
    }

    public Packet retransmission(boolean r) {
        this.retransmission = r;
        return this;
    }

    /**
     * True if a test put this crafted packet on a link ({@code Link.inject}) rather than a
     * device sending it; links pass injected packets by their fault rules.
     */
    public boolean injected() {
        return injected;
    }

    public Packet injected(boolean i) {
        this.injected = i;
        return this;
    }

    /**
     * A value the link carrying the packet keeps with it while it is on the wire (which outage of
     * the link it was sent after); 0 for a new packet, copied by {@link #duplicate()}.
     */
    public long carrierTag() {
        return carrierTag;
    }

    public Packet carrierTag(long tag) {
        this.carrierTag = tag;
        return this;
    }

    /** Sets where {@link #run()} delivers this packet. */
    public Packet deliverTo(PacketSink sink) {
        this.sink = sink;
        return this;
    }

    /** Delivers the packet to its sink; a link schedules the packet itself as the delivery task. */
    @Override
    public void run() {
        PacketSink s = sink;
        sink = null;
        s.receive(this);
    }

    // ------------------------------------------------------------------ helpers

    private int off(HeaderType h) {
        int o = opcode.offset(h);
        if (o < 0) {
            throw new IllegalStateException(opcode + " has no " + h);
        }
        return o;
    }

    private int get24(int o) {
        return ((header[o] & 0xFF) << 16) | ((header[o + 1] & 0xFF) << 8) | (header[o + 2] & 0xFF);
    }

    private void put24(int o, int v) {
        header[o] = (byte) (v >>> 16);
        header[o + 1] = (byte) (v >>> 8);
        header[o + 2] = (byte) v;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(64);
        sb.append(opcode == null ? "?" : opcode.ibaName())
                .append(" qp=")
                .append(destQp())
                .append(" psn=")
                .append(psn());
        if (opcode != null && opcode.has(HeaderType.AETH)) {
            sb.append(' ').append(Aeth.describe(aethSyndrome())).append(" msn=").append(aethMsn());
        }
        if (opcode != null && opcode.has(HeaderType.RETH)) {
            sb.append(" va=0x")
                    .append(Long.toHexString(rethVa()))
                    .append(" rkey=0x")
                    .append(Integer.toHexString(rethRkey()))
                    .append(" len=")
                    .append(rethLength() & 0xFFFFFFFFL);
        }
        sb.append(" payload=").append(payloadLength);
        if (burstLeft > 1) {
            sb.append(" burst=").append(burstLeft);
        }
        if (ackReq()) {
            sb.append(" A");
        }
        if (retransmission) {
            sb.append(" (retx)");
        }
        if (injected) {
            sb.append(" (injected)");
        }
        return sb.toString();
    }
}
