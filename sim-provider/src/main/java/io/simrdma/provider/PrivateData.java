package io.simrdma.provider;

import io.simrdma.fabric.cm.CmId;
import java.util.Arrays;

/**
 * The provider's framing of DAT private data inside IB CM private data. The IB CM carries
 * fixed-size private data fields (REQ 92 bytes, REP 196, REJ 148) without a length, and an IB
 * REQ carries no source port; DAT promises the consumer the exact private data size
 * (DAT_CR_PARAM private_data_size) and the requester's port qualifier. So every REQ, REP and
 * REJ the provider sends starts with a three-byte header: the data length and the sender's port
 * qualifier (big-endian). max_private_data_size is what is left of the smallest field: 89 bytes.
 *
 * <p>Data from a peer that does not use this framing (a raw rdma_cm client) is delivered whole,
 * with port qualifier 0.
 */
final class PrivateData {

    static final int HEADER = 3;
    /** DAT max_private_data_size: the REQ field (the smallest) less the header. */
    static final int MAX = CmId.MAX_CONNECT_PRIVATE_DATA_IB - HEADER;

    /** Decoded private data and the sender's port qualifier. */
    record Decoded(byte[] data, int portQual) {}

    private PrivateData() {}

    static byte[] encode(byte[] data, int portQual) {
        byte[] d = data == null ? new byte[0] : data;
        if (d.length > MAX) {
            throw new IllegalArgumentException("private data of " + d.length + " bytes exceeds " + MAX);
        }
        byte[] wire = new byte[HEADER + d.length];
        wire[0] = (byte) d.length;
        wire[1] = (byte) (portQual >>> 8);
        wire[2] = (byte) portQual;
        System.arraycopy(d, 0, wire, HEADER, d.length);
        return wire;
    }

    static Decoded decode(byte[] wire) {
        if (wire == null || wire.length < HEADER) {
            return new Decoded(wire == null ? new byte[0] : wire.clone(), 0);
        }
        int len = wire[0] & 0xFF;
        if (len > MAX || HEADER + len > wire.length || !zeros(wire, HEADER + len)) {
            return new Decoded(wire.clone(), 0);
        }
        return new Decoded(Arrays.copyOfRange(wire, HEADER, HEADER + len), (wire[1] & 0xFF) << 8 | (wire[2] & 0xFF));
    }

    /** The CM zero-pads the field: padding that is not zero means the data was not framed by us. */
    private static boolean zeros(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
