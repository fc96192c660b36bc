package dev.baton.work;

/**
 * A work cluster operation failed: no leader answered within the request timeout, the leader refused it, or the
 * store failed. The message says which, in one line.
 */
public final class WorkClusterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public WorkClusterException(String message) {
        super(message);
    }

    public WorkClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
