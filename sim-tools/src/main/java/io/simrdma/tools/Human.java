package io.simrdma.tools;

import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Timeout;

/** Words for what the DAT API reports as numbers and enum names, for the command line's messages. */
final class Human {

    private Human() {}

    /** "127.0.0.1:7471" for an IP socket address (no leading slash, no host name lookup). */
    static String address(java.net.SocketAddress a) {
        if (a instanceof java.net.InetSocketAddress i) {
            return (i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString()) + ":" + i.getPort();
        }
        return String.valueOf(a);
    }

    /** "10 s", "250 ms", "forever". */
    static String duration(Timeout t) {
        if (t.equals(Timeout.INFINITE)) {
            return "forever";
        }
        long micros = t.micros();
        if (micros % 1_000_000 == 0) {
            return micros / 1_000_000 + " s";
        }
        if (micros % 1000 == 0) {
            return micros / 1000 + " ms";
        }
        return micros + " us";
    }

    /** How a connection ended or failed, as a phrase ("was refused by the node", ...), with the provider's reason if any. */
    static String connectionEnd(ConnectionEvent e) {
        String what = switch (e.eventNumber()) {
            case CONNECTION_EVENT_ESTABLISHED -> "connected";
            case CONNECTION_EVENT_DISCONNECTED -> "disconnected";
            case CONNECTION_EVENT_BROKEN -> "connection broken (the peer stopped answering)";
            case CONNECTION_EVENT_PEER_REJECTED -> "rejected by the peer application";
            case CONNECTION_EVENT_NON_PEER_REJECTED ->
                "rejected (nothing listens on that connection qualifier, or no resources)";
            case CONNECTION_EVENT_UNREACHABLE -> "unreachable (no node answers at that address)";
            case CONNECTION_EVENT_TIMED_OUT -> "timed out";
            case CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR -> "the accept failed";
            default -> e.eventNumber().name();
        };
        return e.reasonText()
                .map(r -> (e.eventNumber().name().endsWith("UNREACHABLE") ? "unreachable: " : what + ": ") + r)
                .orElse(what);
    }

    /** A DTO completion status in words. */
    static String status(DtoCompletionStatus s) {
        return switch (s) {
            case SUCCESS -> "success";
            case ERR_FLUSHED -> "flushed (the connection ended)";
            default -> s.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        };
    }
}
