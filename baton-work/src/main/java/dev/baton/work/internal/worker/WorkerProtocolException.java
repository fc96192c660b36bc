package dev.baton.work.internal.worker;

import java.util.Objects;

/**
 * A worker protocol message that cannot be used: not JSON, not a known message, missing or mistyped fields, or
 * larger than the configured cap. The message names the problem and, where there is one, the field.
 */
public final class WorkerProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why a message was refused; {@link WorkerConnection} counts refusals by this. */
    public enum Problem {
        /** Not valid JSON text. */
        MALFORMED_JSON,
        /** Valid JSON, but not an object with a string {@code type}. */
        NOT_A_MESSAGE,
        /** A {@code type} this side of the protocol does not know. */
        UNKNOWN_TYPE,
        /** A required field is missing or {@code null}. */
        MISSING_FIELD,
        /** A field has the wrong JSON type (a string where a number belongs, ...). */
        WRONG_FIELD_TYPE,
        /** Larger than the configured maximum message size. */
        OVERSIZED
    }

    private final Problem problem;

    public WorkerProtocolException(Problem problem, String message) {
        super(message);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    public WorkerProtocolException(Problem problem, String message, Throwable cause) {
        super(message, cause);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** Why the message was refused. */
    public Problem problem() {
        return problem;
    }
}
