package dev.baton.work.internal.route;

/**
 * A message on the work cluster's channels that cannot be used: not JSON, not a known message, a missing or
 * mistyped field, or too large. It is logged (at most one line per interval), counted and dropped.
 */
public final class BusProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    public BusProtocolException(String message) {
        super(message);
    }

    public BusProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
