package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.EvdFlag;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The endpoint completion streams that feed one EVD (each endpoint's receive stream and request
 * stream, with its completion flags), and the rules of dat_ep_create(3DAT) USAGE for EVDs shared
 * by several streams: which completion flags may meet on one EVD, and whether waiters on the EVD
 * must use threshold 1 (dat_evd_wait(3DAT)).
 *
 * <p>The rules ask only how many streams there are, how many are UNSIGNALLED and how many are
 * SOLICITED_WAIT receive streams, so this class keeps those three counts, and the streams by
 * endpoint for their removal: a join, a check and a removal take constant time however many
 * endpoints share the EVD (an IA with tens of thousands of endpoints on one EVD connects each in
 * the same time).
 *
 * <p>Callers: {@link SimEvd} asks whether its streams control notification; an endpoint's
 * {@link EpConfiguration} (on dat_ep_create and dat_ep_modify) checks a stream before it joins,
 * then adds it, and removes the endpoint's streams when it leaves.
 *
 * <p>Thread safety: thread-safe; every method holds this object's monitor, which is never held
 * while calling out. A check and the add that follows it are two steps: the endpoint code runs
 * both for one endpoint at a time, on the device executor or before the endpoint exists.
 */
final class EvdStreams {

    /**
     * An endpoint completion stream on this EVD, for the flag rules of dat_ep_create(3DAT);
     * {@code owner} is its endpoint, compared by identity (null for a stream checked, not added).
     */
    record Stream(Object owner, boolean recv, Set<CompletionFlag> flags) {

        boolean unsignalled() {
            return flags.contains(CompletionFlag.UNSIGNALLED);
        }

        /** A receive stream that notifies only for solicited messages. */
        boolean solicitedWait() {
            return recv && flags.contains(CompletionFlag.SOLICITED_WAIT);
        }
    }

    /** Whether the EVD also carries CR, connection, async or software events. */
    private final boolean nonDtoStreams;
    /** Each endpoint's stream, or its two streams (a Stream[]) when both go to this EVD. */
    private final Map<Object, Object> byEndpoint = new IdentityHashMap<>();

    private int streams;
    private int unsignalled;
    private int solicitedWait;

    /** The streams of an EVD created with {@code evdFlags}. */
    EvdStreams(Set<EvdFlag> evdFlags) {
        this.nonDtoStreams = evdFlags.contains(EvdFlag.CR)
                || evdFlags.contains(EvdFlag.CONNECTION)
                || evdFlags.contains(EvdFlag.ASYNC)
                || evdFlags.contains(EvdFlag.SOFTWARE);
    }

    synchronized void add(Stream s) {
        Object had = byEndpoint.get(s.owner());
        byEndpoint.put(s.owner(), had == null ? s : new Stream[] {(Stream) had, s});
        count(s, 1);
    }

    private void count(Stream s, int delta) {
        streams += delta;
        if (s.unsignalled()) {
            unsignalled += delta;
        }
        if (s.solicitedWait()) {
            solicitedWait += delta;
        }
    }

    /** Removes every stream of endpoint {@code owner}. */
    synchronized void removeAll(Object owner) {
        Object had = byEndpoint.remove(owner);
        if (had instanceof Stream one) {
            count(one, -1);
        } else if (had instanceof Stream[] two) {
            for (Stream s : two) {
                count(s, -1);
            }
        }
    }

    synchronized boolean isEmpty() {
        return streams == 0;
    }

    /**
     * True if a stream controls notification itself (UNSIGNALLED, SOLICITED_WAIT): waits need
     * threshold 1 (dat_evd_wait(3DAT)).
     */
    synchronized boolean consumerControlled() {
        return unsignalled > 0 || solicitedWait > 0;
    }

    /** True if a receive stream is SOLICITED_WAIT (dat_evd_query(3DAT): DAT_EVD_STATE_CONFIG_SOLICITED). */
    synchronized boolean hasSolicitedWait() {
        return solicitedWait > 0;
    }

    /**
     * Checks that a stream with completion flags {@code flags} may join (dat_ep_create(3DAT) USAGE):
     * an EVD also fed by non-DTO streams takes only threshold-controlled streams; an UNSIGNALLED
     * stream needs every stream of the EVD UNSIGNALLED; a SOLICITED_WAIT receive stream needs every
     * receive stream SOLICITED_WAIT and no other stream. {@code sibling}, if not null, is another
     * stream of the same endpoint joining at the same time, checked as if already here (after the
     * streams that are).
     *
     * @throws DatException DAT_INVALID_PARAMETER if the stream may not join
     */
    void checkJoin(boolean recvStream, Set<CompletionFlag> flags, Stream sibling) {
        boolean u = flags.contains(CompletionFlag.UNSIGNALLED);
        boolean s = recvStream && flags.contains(CompletionFlag.SOLICITED_WAIT);
        if (nonDtoStreams && (u || s)) {
            throw DatException.invalidParameter(
                    "an EVD fed by non-DTO streams takes only threshold-controlled DTO streams");
        }
        int n;
        int nu;
        int nss;
        synchronized (this) {
            n = streams;
            nu = unsignalled;
            nss = solicitedWait;
        }
        // The streams here agree on UNSIGNALLED (this rule let each in), so a stream that disagrees
        // disagrees with the first of them: the UNSIGNALLED rule is the one broken first.
        if (u ? nu < n : nu > 0) {
            throw unsignalledMismatch();
        }
        if (s ? nss < n : nss > 0) {
            throw solicitedMismatch();
        }
        if (sibling != null) {
            if (sibling.unsignalled() != u) {
                throw unsignalledMismatch();
            }
            if ((sibling.solicitedWait() || s) && !(sibling.recv() && recvStream && sibling.solicitedWait() && s)) {
                throw solicitedMismatch();
            }
        }
    }

    private static DatException unsignalledMismatch() {
        return DatException.invalidParameter(
                "every DTO stream of an EVD with an UNSIGNALLED stream must be UNSIGNALLED");
    }

    private static DatException solicitedMismatch() {
        return DatException.invalidParameter(
                "an EVD with a SOLICITED_WAIT receive stream takes only SOLICITED_WAIT receive streams");
    }
}
