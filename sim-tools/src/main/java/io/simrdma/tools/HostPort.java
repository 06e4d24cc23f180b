package io.simrdma.tools;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A HOST:PORT option value, checked: an IPv4 address (or a name resolving to one) that is not the
 * wildcard, and a port in range.
 *
 * @param host the host as given
 * @param port the port
 */
record HostPort(String host, int port) {

    /**
     * Parses {@code text} given to {@code option}.
     *
     * @param portZero true if port 0 (any free port) is allowed
     * @throws IllegalArgumentException with a message naming the option and what is wrong
     */
    static HostPort parse(String option, String text, boolean portZero) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1 || text.indexOf(':') != colon) {
            throw new IllegalArgumentException(option + " must be HOST:PORT (for example 127.0.0.1:7471), not '" + text
                    + "'" + (text.indexOf(':') != colon ? " (IPv6 addresses are not supported)" : ""));
        }
        String host = text.substring(0, colon);
        String portText = text.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": the port must be a number, not '" + portText + "'");
        }
        int min = portZero ? 0 : 1;
        if (port < min || port > 65535) {
            throw new IllegalArgumentException(option + ": port " + port + " is out of range (" + min + " to 65535"
                    + (portZero ? ", 0 for any free port" : "") + ")");
        }
        InetAddress ip;
        try {
            ip = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(option + ": cannot resolve the host '" + host + "'");
        }
        if (!(ip instanceof Inet4Address)) {
            throw new IllegalArgumentException(
                    option + ": '" + host + "' is not an IPv4 address (IPv6 is not supported)");
        }
        if (ip.isAnyLocalAddress()) {
            throw new IllegalArgumentException(option + ": " + host
                    + " is the wildcard; give the one IPv4 address to use " + "(a node's GID encodes it)");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
