package io.simrdma.fabric.capture;

import io.simrdma.fabric.wire.Gid;
import io.simrdma.fabric.wire.Packet;
import java.util.zip.CRC32;

/**
 * Encodes a simrdma {@link Packet} as the RoCEv2 frame a real port would put on Ethernet (IBA
 * annex A17, "RoCEv2"):
 * <pre>
 *  +----------+------------------------+---------+-----+------------------+---------+-----+------+
 *  | Ethernet | IPv4 (20) or IPv6 (40) | UDP (8) | BTH | extension headers | payload | pad | ICRC |
 *  |   (14)   |  addresses: the GIDs   | -> 4791 | (12)|  (per opcode)     |         |     |  (4) |
 *  +----------+------------------------+---------+-----+------------------+---------+-----+------+
 * </pre>
 * A GID that is an IPv4-mapped address ({@code ::ffff:a.b.c.d}, a TCP node's) gives an IPv4
 * header, any other GID an IPv6 one (RoCEv2 GIDs are IP addresses). MAC addresses are made from
 * the GIDs (locally administered), the UDP source port from the destination QP (RoCEv2 leaves it
 * to the sender, for flow entropy), and IP and UDP checksums are computed.
 *
 * <p>The ICRC (A17.8) is a CRC-32 over the packet from the IP header to the end of the payload
 * with the fields that routers change masked to ones: an 8-byte 0xFF stand-in for the LRH, the
 * IPv4 TOS, TTL and header checksum (IPv6 traffic class, flow label and hop limit), the UDP
 * checksum and the BTH's byte 4 (FECN, BECN, reserved). It is sent least significant byte first,
 * as rxe and HCAs do.
 *
 * <p>Thread safety: stateless; every method may be called from any thread.
 */
public final class RoceFrame {

    /** The UDP destination port of RoCEv2. */
    public static final int ROCE_V2_PORT = 4791;
    /** Ethernet header length. */
    public static final int ETHERNET = 14;

    private static final int IPV4 = 20;
    private static final int IPV6 = 40;
    private static final int UDP = 8;
    private static final byte[] LRH_STANDIN = {-1, -1, -1, -1, -1, -1, -1, -1};

    private RoceFrame() {}

    /** True if {@code gid} is an IPv4-mapped address (::ffff:a.b.c.d). */
    public static boolean isIpv4(Gid gid) {
        for (int i = 0; i < 10; i++) {
            if (gid.byteAt(i) != 0) {
                return false;
            }
        }
        return gid.byteAt(10) == (byte) 0xFF && gid.byteAt(11) == (byte) 0xFF;
    }

    /**
     * The frame of {@code p}, routed from {@code source} to {@code destination}, with a correct
     * ICRC. The packet is only read; the result is a new array the caller owns.
     */
    public static byte[] encode(Packet p, Gid source, Gid destination) {
        boolean v4 = isIpv4(source) && isIpv4(destination);
        int ip = v4 ? IPV4 : IPV6;
        int headers = p.headerLength();
        int payload = p.payloadLength();
        int pad = p.padCount();
        int ibLength = headers + payload + pad + Packet.ICRC_LENGTH;
        byte[] f = new byte[ETHERNET + ip + UDP + ibLength];

        // Ethernet II
        mac(destination, f, 0);
        mac(source, f, 6);
        put16(f, 12, v4 ? 0x0800 : 0x86DD);

        int o = ETHERNET;
        if (v4) {
            f[o] = 0x45; // version 4, 5 words
            put16(f, o + 2, IPV4 + UDP + ibLength); // total length
            put16(f, o + 6, 0x4000); // don't fragment
            f[o + 8] = 64; // TTL
            f[o + 9] = 17; // UDP
            for (int i = 0; i < 4; i++) {
                f[o + 12 + i] = source.byteAt(12 + i);
                f[o + 16 + i] = destination.byteAt(12 + i);
            }
            put16(f, o + 10, ~onesComplementSum(f, o, IPV4, 0) & 0xFFFF);
        } else {
            f[o] = 0x60; // version 6, traffic class 0, flow label 0
            put16(f, o + 4, UDP + ibLength); // payload length
            f[o + 6] = 17; // next header: UDP
            f[o + 7] = 64; // hop limit
            source.copyTo(f, o + 8);
            destination.copyTo(f, o + 24);
        }

        int u = ETHERNET + ip;
        put16(f, u, 0xC000 | (p.destQp() & 0x3FFF)); // source port: entropy from the flow
        put16(f, u + 2, ROCE_V2_PORT);
        put16(f, u + 4, UDP + ibLength);

        int ib = u + UDP;
        p.copyHeaderTo(f, ib);
        p.copyPayload(0, f, ib + headers, payload); // pad bytes stay zero

        // UDP checksum over the pseudo-header, the UDP header and its data (RFC 768, RFC 8200 8.1)
        int pseudo;
        if (v4) {
            pseudo = onesComplementSum(f, ETHERNET + 12, 8, 17 + UDP + ibLength);
        } else {
            pseudo = onesComplementSum(f, ETHERNET + 8, 32, 17 + UDP + ibLength);
        }
        int sum = ~onesComplementSum(f, u, UDP + ibLength, pseudo) & 0xFFFF;
        put16(f, u + 6, sum == 0 ? 0xFFFF : sum);

        putIcrc(f, icrc(f, v4));
        return f;
    }

    /** The ICRC a frame built by {@link #encode} should carry, computed from its bytes. */
    public static int icrc(byte[] frame, boolean ipv4) {
        int ip = ipv4 ? IPV4 : IPV6;
        int masked = ip + UDP + 12;
        byte[] h = new byte[masked];
        System.arraycopy(frame, ETHERNET, h, 0, masked);
        if (ipv4) {
            h[1] = -1; // TOS (DSCP, ECN)
            h[8] = -1; // TTL
            h[10] = -1; // header checksum
            h[11] = -1;
        } else {
            h[0] |= 0x0F; // traffic class ...
            h[1] = -1; // ... and flow label
            h[2] = -1;
            h[3] = -1;
            h[7] = -1; // hop limit
        }
        h[ip + 6] = -1; // UDP checksum
        h[ip + 7] = -1;
        h[ip + UDP + 4] = -1; // BTH byte 4: FECN, BECN, reserved
        CRC32 crc = new CRC32();
        crc.update(LRH_STANDIN);
        crc.update(h);
        int restFrom = ETHERNET + masked;
        crc.update(frame, restFrom, frame.length - Packet.ICRC_LENGTH - restFrom);
        return (int) crc.getValue();
    }

    /** Writes {@code icrc} into the last four bytes of {@code frame}, least significant byte first. */
    public static void putIcrc(byte[] frame, int icrc) {
        int at = frame.length - Packet.ICRC_LENGTH;
        frame[at] = (byte) icrc;
        frame[at + 1] = (byte) (icrc >>> 8);
        frame[at + 2] = (byte) (icrc >>> 16);
        frame[at + 3] = (byte) (icrc >>> 24);
    }

    /** The ICRC carried in the last four bytes of {@code frame}. */
    public static int icrcOf(byte[] frame) {
        int at = frame.length - Packet.ICRC_LENGTH;
        return (frame[at] & 0xFF)
                | (frame[at + 1] & 0xFF) << 8
                | (frame[at + 2] & 0xFF) << 16
                | (frame[at + 3] & 0xFF) << 24;
    }

    /** A locally administered unicast MAC made from the GID's last bytes. */
    private static void mac(Gid gid, byte[] f, int at) {
        f[at] = 0x02;
        f[at + 1] = isIpv4(gid) ? 0 : gid.byteAt(9);
        for (int i = 0; i < 4; i++) {
            f[at + 2 + i] = gid.byteAt(12 + i);
        }
    }

    private static int onesComplementSum(byte[] b, int from, int length, int initial) {
        long sum = initial;
        int end = from + length;
        int i = from;
        for (; i + 1 < end; i += 2) {
            sum += ((b[i] & 0xFF) << 8) | (b[i + 1] & 0xFF);
        }
        if (i < end) {
            sum += (b[i] & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    private static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }
}
