package io.simrdma.fabric.wire;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A 128-bit global identifier of a port (IBA 4.1.1), written like an IPv6 address. In-process
 * devices get a link-local GID made from their GUID ({@code fe80::<guid>}), as RoCE ports do;
 * a capture writes it as the IPv6 source or destination address.
 *
 * <p>Immutable and thread-safe.
 */
public final class Gid {

    private final byte[] bytes;
    private final int hash;
    private final long high;
    private final long low;

    private Gid(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
        this.high = bigEndian(bytes, 0);
        this.low = bigEndian(bytes, 8);
    }

    private static long bigEndian(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }

    /** Bytes 0-7 as a big-endian long (network order), for comparing with a wire header in two reads. */
    public long high() {
        return high;
    }

    /** Bytes 8-15 as a big-endian long (network order). */
    public long low() {
        return low;
    }

    /** A GID from its 16 bytes (copied). */
    public static Gid of(byte[] bytes) {
        if (bytes.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + bytes.length);
        }
        return new Gid(bytes.clone());
    }

    /** The link-local GID of a port with this GUID: fe80:0000:0000:0000:&lt;guid&gt;. */
    public static Gid linkLocal(long guid) {
        byte[] b = new byte[16];
        b[0] = (byte) 0xfe;
        b[1] = (byte) 0x80;
        for (int i = 0; i < 8; i++) {
            b[8 + i] = (byte) (guid >>> (56 - 8 * i));
        }
        return new Gid(b);
    }

    /** Parses the textual IPv6 form ({@code fe80::2}). */
    public static Gid parse(String text) {
        try {
            InetAddress a = InetAddress.getByName(text.indexOf(':') >= 0 ? text : "::ffff:" + text);
            byte[] raw = a.getAddress();
            if (raw.length == 4) {
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(raw, 0, mapped, 12, 4);
                raw = mapped;
            }
            return new Gid(raw);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not a GID: " + text, e);
        }
    }

    /** The 16 bytes (a copy). */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** Copies the 16 bytes into {@code dst} at {@code offset}. */
    public void copyTo(byte[] dst, int offset) {
        System.arraycopy(bytes, 0, dst, offset, 16);
    }

    /** Byte {@code i} of the 16. */
    public byte byteAt(int i) {
        return bytes[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid && Arrays.equals(bytes, ((Gid) o).bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        try {
            String s = Inet6Address.getByAddress(null, bytes, null).getHostAddress();
            int pct = s.indexOf('%');
            return pct >= 0 ? s.substring(0, pct) : s;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
