package io.simrdma.fabric.cm;

import io.simrdma.fabric.wire.Gid;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One IB CM message (IBA 12.6) in a 256-byte management datagram, encoded with the real layouts,
 * so that a capture shows it as Wireshark's InfiniBand CM dissector expects.
 *
 * <pre>
 *  0                   1                   2                   3
 *  +---------------+---------------+---------------+---------------+
 *  | BaseVersion=1 | MgmtClass=07h | ClassVer=2    |R| Method=03h  |  common MAD header (IBA 13.4.3)
 *  +---------------+---------------+---------------+---------------+
 *  |            Status             |         ClassSpecific         |
 *  +---------------+---------------+---------------+---------------+
 *  |                        TransactionID (8)                      |
 *  +---------------+---------------+---------------+---------------+
 *  |          AttributeID          |           Reserved            |
 *  +---------------+---------------+---------------+---------------+
 *  |                     AttributeModifier (4)                     |
 *  +---------------+---------------+---------------+---------------+
 *  |            message contents (232 bytes, per attribute)        |
 * </pre>
 * Message contents follow IBA tables 106 (REQ), 108 (REJ), 110 (REP), 111 (RTU), 112 (DREQ),
 * 113 (DREP), 107 (MRA), 114 (SIDR_REQ) and 115 (SIDR_REP); offsets below are from the start of
 * the contents. A SIDR message's RequestID is carried in {@code localCommId}.
 *
 * <p>Thread safety: not thread-safe; a value built, encoded or decoded by one thread.
 */
final class CmMessage {

    static final int MAD_SIZE = 256;
    static final int HEADER = 24;
    static final int MGMT_CLASS_CM = 0x07;
    static final int CLASS_VERSION = 2;
    static final int METHOD_SEND = 0x03;

    /** CM attribute IDs (IBA table 104). */
    enum Type {
        REQ(0x0010, 140, 92),
        MRA(0x0011, 10, 222),
        REJ(0x0012, 84, 148),
        REP(0x0013, 36, 196),
        RTU(0x0014, 8, 224),
        DREQ(0x0015, 12, 220),
        DREP(0x0016, 8, 224),
        /** Service ID Resolution Request (IBA 12.11.1, table 114). */
        SIDR_REQ(0x0017, 16, 216),
        /** Service ID Resolution Response (IBA 12.11.2, table 115). */
        SIDR_REP(0x0018, 96, 136);

        final int attributeId;
        /** Where the private data starts in the message contents. */
        final int privateDataOffset;
        /** Bytes of private data the message carries. */
        final int privateDataLength;

        Type(int attributeId, int privateDataOffset, int privateDataLength) {
            this.attributeId = attributeId;
            this.privateDataOffset = privateDataOffset;
            this.privateDataLength = privateDataLength;
        }

        static Type of(int attributeId) {
            for (Type t : values()) {
                if (t.attributeId == attributeId) {
                    return t;
                }
            }
            return null;
        }
    }

    /** Which message a REJ or MRA refers to (MessageRejected / MessageMRAed, 2 bits). */
    static final int MSG_REQ = 0;

    static final int MSG_REP = 1;
    static final int MSG_OTHER = 2;

    Type type;
    long transactionId;
    int localCommId;
    int remoteCommId;
    // REQ
    long serviceId;
    long localCaGuid;
    int localQpn;
    int responderResources;
    int initiatorDepth;
    int remoteCmResponseTimeout;
    int transportServiceType;
    boolean flowControl;
    int startingPsn;
    int localCmResponseTimeout;
    int retryCount;
    int pkey = 0xFFFF;
    int pathMtu;
    int rnrRetryCount;
    int maxCmRetries;
    boolean srq;
    Gid primaryLocalGid;
    Gid primaryRemoteGid;
    int flowLabel;
    int packetRate;
    int trafficClass;
    int hopLimit;
    int sl;
    boolean subnetLocal;
    int localAckTimeout;
    // REP
    int targetAckDelay;
    int failoverAccepted;
    // REJ, MRA
    int messageRejected;
    int reason;
    int serviceTimeout;
    // DREQ
    int remoteQpn;
    // SIDR_REP (localQpn, serviceId shared with REQ/REP)
    int sidrStatus;
    int qkey;
    byte[] privateData = new byte[0];

    static CmMessage of(Type type) {
        CmMessage m = new CmMessage();
        m.type = type;
        return m;
    }

    /** Encodes into a new 256-byte MAD. */
    byte[] encode() {
        byte[] mad = new byte[MAD_SIZE];
        ByteBuffer b = ByteBuffer.wrap(mad);
        b.put(0, (byte) 1);
        b.put(1, (byte) MGMT_CLASS_CM);
        b.put(2, (byte) CLASS_VERSION);
        b.put(3, (byte) METHOD_SEND);
        b.putLong(8, transactionId);
        b.putShort(16, (short) type.attributeId);
        int o = HEADER;
        b.putInt(o, localCommId);
        if (type != Type.REQ && type != Type.SIDR_REQ && type != Type.SIDR_REP) {
            b.putInt(o + 4, remoteCommId);
        }
        switch (type) {
            case REQ:
                b.putLong(o + 8, serviceId);
                b.putLong(o + 16, localCaGuid);
                b.putInt(o + 28, 0);
                put24(b, o + 32, localQpn);
                b.put(o + 35, (byte) responderResources);
                put24(b, o + 36, 0);
                b.put(o + 39, (byte) initiatorDepth);
                put24(b, o + 40, 0);
                b.put(o + 43, (byte) ((remoteCmResponseTimeout & 0x1F) << 3
                        | (transportServiceType & 3) << 1
                        | (flowControl ? 1 : 0)));
                put24(b, o + 44, startingPsn);
                b.put(o + 47, (byte) ((localCmResponseTimeout & 0x1F) << 3 | (retryCount & 7)));
                b.putShort(o + 48, (short) pkey);
                b.put(o + 50, (byte) ((pathMtu & 0xF) << 4 | (rnrRetryCount & 7)));
                b.put(o + 51, (byte) ((maxCmRetries & 0xF) << 4 | (srq ? 1 << 3 : 0)));
                b.putShort(o + 52, (short) 0xFFFF);
                b.putShort(o + 54, (short) 0xFFFF);
                putGid(b, o + 56, primaryLocalGid);
                putGid(b, o + 72, primaryRemoteGid);
                b.putInt(o + 88, (flowLabel & 0xFFFFF) << 12 | (packetRate & 0x3F));
                b.put(o + 92, (byte) trafficClass);
                b.put(o + 93, (byte) hopLimit);
                b.put(o + 94, (byte) ((sl & 0xF) << 4 | (subnetLocal ? 1 << 3 : 0)));
                b.put(o + 95, (byte) ((localAckTimeout & 0x1F) << 3));
                break;
            case REP:
                b.putInt(o + 8, 0);
                put24(b, o + 12, localQpn);
                put24(b, o + 16, 0);
                put24(b, o + 20, startingPsn);
                b.put(o + 24, (byte) responderResources);
                b.put(o + 25, (byte) initiatorDepth);
                b.put(o + 26, (byte)
                        ((targetAckDelay & 0x1F) << 3 | (failoverAccepted & 3) << 1 | (flowControl ? 1 : 0)));
                b.put(o + 27, (byte) ((rnrRetryCount & 7) << 5 | (srq ? 1 << 4 : 0)));
                b.putLong(o + 28, localCaGuid);
                break;
            case REJ:
                b.put(o + 8, (byte) ((messageRejected & 3) << 6));
                b.put(o + 9, (byte) 0);
                b.putShort(o + 10, (short) reason);
                break;
            case MRA:
                b.put(o + 8, (byte) ((messageRejected & 3) << 6));
                b.put(o + 9, (byte) ((serviceTimeout & 0x1F) << 3));
                break;
            case RTU:
            case DREP:
                break;
            case DREQ:
                put24(b, o + 8, remoteQpn);
                break;
            case SIDR_REQ:
                b.putShort(o + 4, (short) pkey);
                b.putLong(o + 8, serviceId);
                break;
            case SIDR_REP:
                b.put(o + 4, (byte) sidrStatus);
                b.put(o + 5, (byte) 0);
                put24(b, o + 8, localQpn);
                b.putLong(o + 12, serviceId);
                b.putInt(o + 20, qkey);
                break;
            default:
                throw new IllegalStateException("no encoding for " + type);
        }
        putPrivate(b, o + type.privateDataOffset);
        return mad;
    }

    /**
     * Decodes a MAD; returns null if it is not a CM Send of a message type simrdma knows (the
     * caller counts and drops it).
     */
    static CmMessage decode(byte[] mad) {
        if (mad.length != MAD_SIZE) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(mad);
        if (b.get(0) != 1
                || (b.get(1) & 0xFF) != MGMT_CLASS_CM
                || (b.get(2) & 0xFF) != CLASS_VERSION
                || (b.get(3) & 0x7F) != METHOD_SEND) {
            return null;
        }
        Type t = Type.of(b.getShort(16) & 0xFFFF);
        if (t == null) {
            return null;
        }
        CmMessage m = of(t);
        m.transactionId = b.getLong(8);
        int o = HEADER;
        m.localCommId = b.getInt(o);
        if (t != Type.REQ && t != Type.SIDR_REQ && t != Type.SIDR_REP) {
            m.remoteCommId = b.getInt(o + 4);
        }
        switch (t) {
            case REQ: {
                m.serviceId = b.getLong(o + 8);
                m.localCaGuid = b.getLong(o + 16);
                m.localQpn = get24(b, o + 32);
                m.responderResources = b.get(o + 35) & 0xFF;
                m.initiatorDepth = b.get(o + 39) & 0xFF;
                int x = b.get(o + 43) & 0xFF;
                m.remoteCmResponseTimeout = x >>> 3;
                m.transportServiceType = (x >>> 1) & 3;
                m.flowControl = (x & 1) != 0;
                m.startingPsn = get24(b, o + 44);
                x = b.get(o + 47) & 0xFF;
                m.localCmResponseTimeout = x >>> 3;
                m.retryCount = x & 7;
                m.pkey = b.getShort(o + 48) & 0xFFFF;
                x = b.get(o + 50) & 0xFF;
                m.pathMtu = x >>> 4;
                m.rnrRetryCount = x & 7;
                x = b.get(o + 51) & 0xFF;
                m.maxCmRetries = x >>> 4;
                m.srq = (x & 0x08) != 0;
                m.primaryLocalGid = getGid(mad, HEADER + 56);
                m.primaryRemoteGid = getGid(mad, HEADER + 72);
                int fl = b.getInt(o + 88);
                m.flowLabel = fl >>> 12;
                m.packetRate = fl & 0x3F;
                m.trafficClass = b.get(o + 92) & 0xFF;
                m.hopLimit = b.get(o + 93) & 0xFF;
                x = b.get(o + 94) & 0xFF;
                m.sl = x >>> 4;
                m.subnetLocal = (x & 0x08) != 0;
                m.localAckTimeout = (b.get(o + 95) & 0xFF) >>> 3;
                break;
            }
            case REP: {
                m.localQpn = get24(b, o + 12);
                m.startingPsn = get24(b, o + 20);
                m.responderResources = b.get(o + 24) & 0xFF;
                m.initiatorDepth = b.get(o + 25) & 0xFF;
                int x = b.get(o + 26) & 0xFF;
                m.targetAckDelay = x >>> 3;
                m.failoverAccepted = (x >>> 1) & 3;
                m.flowControl = (x & 1) != 0;
                x = b.get(o + 27) & 0xFF;
                m.rnrRetryCount = x >>> 5;
                m.srq = (x & 0x10) != 0;
                m.localCaGuid = b.getLong(o + 28);
                break;
            }
            case REJ:
                m.messageRejected = (b.get(o + 8) & 0xFF) >>> 6;
                m.reason = b.getShort(o + 10) & 0xFFFF;
                break;
            case MRA:
                m.messageRejected = (b.get(o + 8) & 0xFF) >>> 6;
                m.serviceTimeout = (b.get(o + 9) & 0xFF) >>> 3;
                break;
            case RTU:
            case DREP:
                break;
            case DREQ:
                m.remoteQpn = get24(b, o + 8);
                break;
            case SIDR_REQ:
                m.pkey = b.getShort(o + 4) & 0xFFFF;
                m.serviceId = b.getLong(o + 8);
                break;
            case SIDR_REP:
                m.sidrStatus = b.get(o + 4) & 0xFF;
                m.localQpn = get24(b, o + 8);
                m.serviceId = b.getLong(o + 12);
                m.qkey = b.getInt(o + 20);
                break;
            default:
                return null;
        }
        int pd = o + t.privateDataOffset;
        m.privateData = Arrays.copyOfRange(mad, pd, pd + t.privateDataLength);
        return m;
    }

    private void putPrivate(ByteBuffer b, int at) {
        byte[] pd = privateData == null ? new byte[0] : privateData;
        if (pd.length > type.privateDataLength) {
            throw new IllegalArgumentException(
                    type + " carries at most " + type.privateDataLength + " bytes of private data");
        }
        b.put(at, pd, 0, pd.length);
    }

    private static void put24(ByteBuffer b, int at, int v) {
        b.put(at, (byte) (v >>> 16));
        b.put(at + 1, (byte) (v >>> 8));
        b.put(at + 2, (byte) v);
    }

    private static int get24(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 16 | (b.get(at + 1) & 0xFF) << 8 | (b.get(at + 2) & 0xFF);
    }

    private static void putGid(ByteBuffer b, int at, Gid g) {
        if (g != null) {
            byte[] raw = g.toBytes();
            b.put(at, raw, 0, 16);
        }
    }

    private static Gid getGid(byte[] mad, int at) {
        return Gid.of(Arrays.copyOfRange(mad, at, at + 16));
    }

    @Override
    public String toString() {
        StringBuilder sb =
                new StringBuilder("CM ").append(type).append(" local=0x").append(Integer.toHexString(localCommId));
        if (type != Type.REQ) {
            sb.append(" remote=0x").append(Integer.toHexString(remoteCommId));
        }
        if (type == Type.REQ) {
            sb.append(" sid=0x")
                    .append(Long.toHexString(serviceId))
                    .append(" qpn=")
                    .append(localQpn)
                    .append(" psn=")
                    .append(startingPsn);
        } else if (type == Type.REP) {
            sb.append(" qpn=").append(localQpn).append(" psn=").append(startingPsn);
        } else if (type == Type.REJ) {
            sb.append(" reason=").append(reason);
        } else if (type == Type.SIDR_REP) {
            sb.append(" status=")
                    .append(sidrStatus)
                    .append(" qpn=")
                    .append(localQpn)
                    .append(" qkey=0x")
                    .append(Integer.toHexString(qkey));
        } else if (type == Type.MRA) {
            sb.append(" mraed=")
                    .append(messageRejected)
                    .append(" serviceTimeout=")
                    .append(serviceTimeout);
        }
        return sb.toString();
    }
}
