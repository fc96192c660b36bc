package dev.baton.core.store;

/** A store call failed: the server is unreachable, answered with an error, or answered something unexpected. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
