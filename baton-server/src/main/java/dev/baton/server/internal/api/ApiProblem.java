package dev.baton.server.internal.api;

import java.util.Map;

/**
 * A request the API answers with an error: the HTTP status, a stable machine-readable {@code error} code and a
 * message for the person reading it. Routes throw it; {@link ApiErrors} turns it into {@code {"error", "message"}}.
 * It carries no cause and no stack trace: it is an answer, not a failure of the node.
 */
final class ApiProblem extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String error;
    private final String field;
    private final transient Map<String, String> headers;

    ApiProblem(int status, String error, String message) {
        this(status, error, message, null, Map.of());
    }

    ApiProblem(int status, String error, String message, Map<String, String> headers) {
        this(status, error, message, null, headers);
    }

    private ApiProblem(int status, String error, String message, String field, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.error = error;
        this.field = field;
        this.headers = Map.copyOf(headers);
    }

    /** A 400 about one field of the input, named in the answer's {@code field}. */
    static ApiProblem invalidField(String error, String field, String message) {
        return new ApiProblem(400, error, message, field, Map.of());
    }

    static ApiProblem badRequest(String message) {
        return new ApiProblem(400, "bad_request", message);
    }

    static ApiProblem notFound(String message) {
        return new ApiProblem(404, "not_found", message);
    }

    static ApiProblem storeUnavailable(String message) {
        return new ApiProblem(503, "store_unavailable", message, Map.of("Retry-After", "1"));
    }

    int status() {
        return status;
    }

    String error() {
        return error;
    }

    /** The input field at fault, or null. */
    String field() {
        return field;
    }

    Map<String, String> headers() {
        return headers;
    }
}
