package io.simrdma.fabric.cm;

import io.simrdma.fabric.wire.Gid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The connections one device's IB CM knows, found the two ways a CM message names them: by the
 * local communication ID that the peer's REP, RTU, REJ, DREQ and DREP carry as their remote comm
 * ID, and, for a REQ, by the requester's CA GUID and comm ID, which is how a duplicate REQ is told
 * from a new one (IBA 12.6.2, 12.9.6). An id enters the table when it sends or receives a REQ and
 * leaves it when its connection returns to IDLE for good.
 *
 * <p>Iteration is in the order ids entered, so that scans (a QP's event, a device's removal) treat
 * connections in a reproducible order under the deterministic scheduler.
 *
 * <p>Thread safety: not thread-safe; confined to the device executor.
 *
 * <p>Who calls it: the device's {@link ConnectionMachine} (lookups, entries) and {@link CmAgent}
 * (which connection a QP event concerns).
 */
final class ConnectionTable {

    private record RemoteKey(long guid, int commId) {}

    /** The REJ that refused a request, and when a duplicate of the request can no longer come. */
    private record Rejection(byte[] rej, long expiresAt) {}

    /** Most rejected requests remembered at once; beyond it the oldest is forgotten first. */
    static final int MAX_REJECTIONS = 1024;

    private final Map<Integer, CmId> byLocalCommId = new LinkedHashMap<>();
    private final Map<RemoteKey, CmId> byRemote = new HashMap<>();
    /** Rejected requests by requester, oldest first, kept after their ids are gone (see {@link #rejected}). */
    private final LinkedHashMap<RemoteKey, Rejection> rejections = new LinkedHashMap<>();

    /** Enters {@code id} under its local comm ID. */
    void addLocal(CmId id) {
        byLocalCommId.put(id.connection.localCommId, id);
    }

    /** Enters the request id {@code id} under the requester's CA GUID and comm ID. */
    void addRemote(long remoteGuid, int remoteCommId, CmId id) {
        byRemote.put(new RemoteKey(remoteGuid, remoteCommId), id);
    }

    /** The id whose local comm ID is {@code localCommId}, or null. */
    CmId byLocal(int localCommId) {
        return byLocalCommId.get(localCommId);
    }

    /** The id made for the REQ with this requester's CA GUID and comm ID, or null. */
    CmId byRemote(long remoteGuid, int remoteCommId) {
        return byRemote.get(new RemoteKey(remoteGuid, remoteCommId));
    }

    /**
     * The received request from {@code source} with the requester's comm id {@code remoteCommId} that is not
     * established yet (REQ_RCVD or REP_SENT), or null.
     */
    CmId receivedRequest(Gid source, int remoteCommId) {
        for (CmId c : byLocalCommId.values()) {
            Connection cx = c.connection;
            if ((cx.state == Connection.State.REQ_RCVD || cx.state == Connection.State.REP_SENT)
                    && cx.remoteCommId == remoteCommId
                    && source.equals(cx.remoteGid)) {
                return c;
            }
        }
        return null;
    }

    /**
     * Remembers that the request with this requester's CA GUID and comm ID was refused with {@code rej}, until
     * {@code expiresAt} (fabric time): a duplicate of the REQ that arrives after the id that held it is gone
     * (rdma_destroy_id(3) after rdma_reject(3)) still gets the REJ again instead of being taken for a new request
     * (IBA 12.9.6: a duplicate is answered, never executed twice). At most {@link #MAX_REJECTIONS} are kept; expired
     * ones are dropped as new ones come.
     */
    void rememberRejection(long remoteGuid, int remoteCommId, byte[] rej, long expiresAt, long now) {
        dropExpired(now);
        RemoteKey k = new RemoteKey(remoteGuid, remoteCommId);
        rejections.remove(k);
        rejections.put(k, new Rejection(rej, expiresAt));
        if (rejections.size() > MAX_REJECTIONS) {
            Iterator<RemoteKey> it = rejections.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    /** The REJ that refused the request with this requester's CA GUID and comm ID, if still remembered at {@code now}. */
    byte[] rejected(long remoteGuid, int remoteCommId, long now) {
        dropExpired(now);
        Rejection r = rejections.get(new RemoteKey(remoteGuid, remoteCommId));
        return r == null ? null : r.rej();
    }

    /** How many rejected requests are remembered (for tests). */
    int rejectionsRemembered(long now) {
        dropExpired(now);
        return rejections.size();
    }

    private void dropExpired(long now) {
        rejections.values().removeIf(r -> r.expiresAt() <= now);
    }

    /** Removes {@code id} from both indexes. */
    void forget(CmId id) {
        byLocalCommId.remove(id.connection.localCommId, id);
        byRemote.remove(new RemoteKey(id.connection.remoteGuid, id.connection.remoteCommId), id);
    }

    /** The ids in the table, in the order they entered; a copy the caller may change the table under. */
    List<CmId> snapshot() {
        return new ArrayList<>(byLocalCommId.values());
    }
}
