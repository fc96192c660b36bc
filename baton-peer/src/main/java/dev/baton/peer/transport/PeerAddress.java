package dev.baton.peer.transport;

import java.util.Comparator;
import java.util.Locale;
import java.util.Objects;

/**
 * The address a peer listens on and is known by: a host and a TCP port.
 *
 * <p>A node's address is its identity on the peer network: the transport's handshake carries it, messages are
 * addressed to it and come from it, and the seed 003 rules order nodes by it. Two nodes must therefore spell each
 * other's address the same way (both {@code 10.0.0.5:7400}, not one {@code 10.0.0.5} and the other a host name): a
 * peer that answers under another address than the one dialled is refused.
 *
 * <p>Order (seed 003, "compare host strings first, then compare ports"): by {@link #host()} as a string, then by
 * {@link #port()} numerically. Host names are kept in lower case so the order does not depend on how a name was
 * typed; no other normalisation (DNS, IPv6 compression) happens.
 *
 * @param host a host name or IP literal, without brackets; lower-cased, never blank
 * @param port a TCP port, 1 to 65535
 */
public record PeerAddress(String host, int port) implements Comparable<PeerAddress> {

    private static final Comparator<PeerAddress> ORDER =
            Comparator.comparing(PeerAddress::host).thenComparingInt(PeerAddress::port);

    /** Validates and lower-cases the host. */
    public PeerAddress {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank");
        }
        if (host.startsWith("[") || host.endsWith("]")) {
            throw new IllegalArgumentException("host must be given without brackets, was " + host);
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || c == '/' || c == '@') {
                throw new IllegalArgumentException("host contains an invalid character: " + host);
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be within 1..65535, was " + port);
        }
        host = host.toLowerCase(Locale.ROOT);
    }

    /** Shorthand for {@code new PeerAddress(host, port)}. */
    public static PeerAddress of(String host, int port) {
        return new PeerAddress(host, port);
    }

    /**
     * Parses {@code host:port}; an IPv6 literal goes in brackets: {@code [::1]:7400}.
     *
     * @throws IllegalArgumentException with a message that says what is wrong with {@code text}
     */
    public static PeerAddress parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("peer address must be HOST:PORT, was empty");
        }
        String s = text.strip();
        String host;
        String portText;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("peer address " + s + " opens a bracket for an IPv6 host but never closes it");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.startsWith(":")) {
                throw new IllegalArgumentException("peer address " + s + " has no port: expected [HOST]:PORT");
            }
            portText = rest.substring(1);
            if (host.isEmpty()) {
                throw new IllegalArgumentException("peer address " + s + " has an empty host");
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("peer address " + s + " has no port: expected HOST:PORT");
            }
            if (s.indexOf(':') != colon) {
                throw new IllegalArgumentException(
                        "peer address " + s + " looks like an IPv6 address: put the host in brackets, as in [::1]:7400");
            }
            host = s.substring(0, colon);
            portText = s.substring(colon + 1);
            if (host.isEmpty()) {
                throw new IllegalArgumentException("peer address " + s + " has an empty host");
            }
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("peer address " + s + " has a port that is not a number: '" + portText + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("peer address " + s + " has port " + port + ", outside 1..65535");
        }
        return new PeerAddress(host, port);
    }

    /** {@code host:port}, with an IPv6 host in brackets; {@link #parse} reads it back. */
    public String format() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    @Override
    public int compareTo(PeerAddress other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return format();
    }
}
