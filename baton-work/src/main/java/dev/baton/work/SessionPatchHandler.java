package dev.baton.work;

/**
 * Handles a worker's {@code patchSession} (session data from its processing), on the leader; its answer goes back to
 * the worker as {@code patchSessionResult}. Called on the work cluster's source executor.
 */
@FunctionalInterface
public interface SessionPatchHandler {

    /** Answers every patch with {@code success: false}, saying no handler is configured. */
    SessionPatchHandler NONE = (sessionId, data) -> {
        throw new UnsupportedOperationException("no session patch handler is configured");
    };

    /**
     * Applies a patch. Returning true answers {@code success: true}; false or throwing answers {@code success:
     * false} (with the exception's message).
     *
     * @param data the seed's {@code any}: {@code Map}, {@code List}, {@code String}, {@code Number}, {@code Boolean}
     *             or {@code null}
     */
    boolean patch(long sessionId, Object data) throws Exception;
}
