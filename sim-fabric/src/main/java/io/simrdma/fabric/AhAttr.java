package io.simrdma.fabric;

import io.simrdma.fabric.wire.Gid;
import java.util.Objects;

/**
 * Address vector of a path (struct ibv_ah_attr, RoCE form: the destination is a GID).
 *
 * <p>Thread safety: immutable.
 *
 * @param dgid         destination port's GID
 * @param sgidIndex    source GID table index (simrdma ports have one GID, index 0)
 * @param hopLimit     IP hop limit / GRH hop limit
 * @param trafficClass IP traffic class
 * @param flowLabel    IPv6 flow label (20 bits)
 * @param sl           service level (0-15)
 * @param portNum      local port (1)
 */
public record AhAttr(Gid dgid, int sgidIndex, int hopLimit, int trafficClass, int flowLabel, int sl, int portNum) {

    public AhAttr {
        Objects.requireNonNull(dgid, "dgid");
    }

    /** A path to {@code dgid} from port 1 with default GRH fields. */
    public static AhAttr to(Gid dgid) {
        return new AhAttr(dgid, 0, 64, 0, 0, 0, 1);
    }
}
