package io.simrdma.fabric.capture;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a pcapng file (the IETF draft "PCAP Next Generation Capture File Format"): a Section
 * Header Block, one Interface Description Block for an Ethernet interface with nanosecond
 * timestamps, then an Enhanced Packet Block per frame, each with an optional comment. All blocks
 * are little-endian.
 * <pre>
 *  Enhanced Packet Block:
 *  +------------+-------------+--------------+-----------+-----------+------------+------------+
 *  | type = 6   | block length| interface id | ts (high) | ts (low)  | captured   | original   |
 *  +------------+-------------+--------------+-----------+-----------+------------+------------+
 *  | frame bytes, padded to 4 | opt_comment (code 1), padded | opt_endofopt | block length    |
 *  +--------------------------+------------------------------+--------------+-----------------+
 * </pre>
 * The writer adds nothing that varies between runs (no host name, no wall clock of its own), so
 * the same frames at the same timestamps give the same bytes.
 *
 * <p>Thread safety: not thread-safe; {@link PacketCapture} serializes its calls. The stream
 * stays the caller's: {@link #close()} flushes and closes it.
 */
public final class PcapngWriter implements AutoCloseable {

    private static final int SHB = 0x0A0D0D0A;
    private static final int IDB = 1;
    private static final int EPB = 6;
    private static final int LINKTYPE_ETHERNET = 1;

    private final OutputStream out;
    private byte[] block = new byte[4096];
    private int at;

    /**
     * Starts a file on {@code out}: writes the section header and the interface description.
     *
     * @param interfaceName what the interface is called in Wireshark's capture file properties
     */
    public PcapngWriter(OutputStream out, String interfaceName) throws IOException {
        this.out = out;
        begin(SHB);
        int32(0x1A2B3C4D); // byte-order magic
        int16(1); // version 1.0
        int16(0);
        int32(-1); // section length: not given
        int32(-1);
        option(4, "simrdma"); // shb_userappl
        endOfOptions();
        end();
        begin(IDB);
        int16(LINKTYPE_ETHERNET);
        int16(0);
        int32(0); // snap length: no limit
        option(2, interfaceName); // if_name
        optionByte(9, 9); // if_tsresol: 10^-9 s
        endOfOptions();
        end();
    }

    /**
     * Writes one frame.
     *
     * @param timeNanos timestamp, nanoseconds since 1970-01-01 (or since the start of a virtual clock)
     * @param frame     the Ethernet frame; only read
     * @param comment   the packet's comment, or null
     */
    public void write(long timeNanos, byte[] frame, String comment) throws IOException {
        begin(EPB);
        int32(0); // interface 0
        int32((int) (timeNanos >>> 32));
        int32((int) timeNanos);
        int32(frame.length);
        int32(frame.length);
        bytes(frame, frame.length);
        if (comment != null && !comment.isEmpty()) {
            option(1, comment); // opt_comment
            endOfOptions();
        }
        end();
    }

    /** Flushes and closes the stream. */
    @Override
    public void close() throws IOException {
        out.flush();
        out.close();
    }

    /** Flushes what was written so far. */
    public void flush() throws IOException {
        out.flush();
    }

    // ------------------------------------------------------------------ block building

    private void begin(int type) {
        at = 0;
        int32(type);
        int32(0); // length, set by end()
    }

    private void end() throws IOException {
        int length = at + 4;
        int32(length);
        block[4] = (byte) length;
        block[5] = (byte) (length >>> 8);
        block[6] = (byte) (length >>> 16);
        block[7] = (byte) (length >>> 24);
        out.write(block, 0, at);
    }

    private void option(int code, String value) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        int16(code);
        int16(v.length);
        bytes(v, v.length);
    }

    private void optionByte(int code, int value) {
        int16(code);
        int16(1);
        bytes(new byte[] {(byte) value}, 1);
    }

    private void endOfOptions() {
        int16(0);
        int16(0);
    }

    /** Appends {@code n} bytes and zero padding to a multiple of 4. */
    private void bytes(byte[] b, int n) {
        int padded = (n + 3) & ~3;
        ensure(padded);
        System.arraycopy(b, 0, block, at, n);
        for (int i = n; i < padded; i++) {
            block[at + i] = 0;
        }
        at += padded;
    }

    private void int16(int v) {
        ensure(2);
        block[at++] = (byte) v;
        block[at++] = (byte) (v >>> 8);
    }

    private void int32(int v) {
        ensure(4);
        block[at++] = (byte) v;
        block[at++] = (byte) (v >>> 8);
        block[at++] = (byte) (v >>> 16);
        block[at++] = (byte) (v >>> 24);
    }

    private void ensure(int n) {
        if (at + n + 4 > block.length) {
            block = java.util.Arrays.copyOf(block, Math.max(block.length * 2, at + n + 64));
        }
    }
}
