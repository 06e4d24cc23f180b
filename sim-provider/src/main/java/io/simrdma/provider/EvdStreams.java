package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.EvdFlag;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The endpoint completion streams that feed one EVD (each endpoint's receive stream and request
 * stream, with its completion flags), and the rules of dat_ep_create(3DAT) USAGE for EVDs shared
 * by several streams: which completion flags may meet on one EVD, and whether waiters on the EVD
 * must use threshold 1 (dat_evd_wait(3DAT)).
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

    /** An endpoint completion stream on this EVD, for the flag rules of dat_ep_create(3DAT). */
    record Stream(SimEp ep, boolean recv, Set<CompletionFlag> flags) {

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
    private final List<Stream> streams = new ArrayList<>();

    /** The streams of an EVD created with {@code evdFlags}. */
    EvdStreams(Set<EvdFlag> evdFlags) {
        this.nonDtoStreams = evdFlags.contains(EvdFlag.CR) || evdFlags.contains(EvdFlag.CONNECTION)
                || evdFlags.contains(EvdFlag.ASYNC) || evdFlags.contains(EvdFlag.SOFTWARE);
    }

    synchronized void add(Stream s) {
        streams.add(s);
    }

    /** Removes every stream of {@code ep}. */
    synchronized void removeAll(SimEp ep) {
        streams.removeIf(s -> s.ep() == ep);
    }

    synchronized boolean isEmpty() {
        return streams.isEmpty();
    }

    /**
     * True if a stream controls notification itself (UNSIGNALLED, SOLICITED_WAIT): waits need
     * threshold 1 (dat_evd_wait(3DAT)).
     */
    synchronized boolean consumerControlled() {
        for (Stream s : streams) {
            if (s.unsignalled() || s.solicitedWait()) {
                return true;
            }
        }
        return false;
    }

    /** True if a receive stream is SOLICITED_WAIT (dat_evd_query(3DAT): DAT_EVD_STATE_CONFIG_SOLICITED). */
    synchronized boolean hasSolicitedWait() {
        for (Stream s : streams) {
            if (s.solicitedWait()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks that a stream with completion flags {@code flags} may join (dat_ep_create(3DAT) USAGE):
     * an EVD also fed by non-DTO streams takes only threshold-controlled streams; an UNSIGNALLED
     * stream needs every stream of the EVD UNSIGNALLED; a SOLICITED_WAIT receive stream needs every
     * receive stream SOLICITED_WAIT and no other stream. {@code sibling}, if not null, is another
     * stream of the same endpoint joining at the same time, checked as if already here.
     *
     * @throws DatException DAT_INVALID_PARAMETER if the stream may not join
     */
    void checkJoin(boolean recvStream, Set<CompletionFlag> flags, Stream sibling) {
        boolean unsignalled = flags.contains(CompletionFlag.UNSIGNALLED);
        boolean solicited = recvStream && flags.contains(CompletionFlag.SOLICITED_WAIT);
        if (nonDtoStreams && (unsignalled || solicited)) {
            throw DatException.invalidParameter("an EVD fed by non-DTO streams takes only threshold-controlled DTO streams");
        }
        List<Stream> present;
        synchronized (this) {
            present = new ArrayList<>(streams);
        }
        if (sibling != null) {
            present.add(sibling);
        }
        for (Stream s : present) {
            boolean su = s.unsignalled();
            boolean ss = s.solicitedWait();
            if (su != unsignalled && (su || unsignalled)) {
                throw DatException.invalidParameter("every DTO stream of an EVD with an UNSIGNALLED stream must be UNSIGNALLED");
            }
            if (ss || solicited) {
                if (!(s.recv() && recvStream && ss && solicited)) {
                    throw DatException.invalidParameter(
                            "an EVD with a SOLICITED_WAIT receive stream takes only SOLICITED_WAIT receive streams");
                }
            }
        }
    }
}
