package dev.baton.work;

import java.util.Optional;

/**
 * A work item, or its JSON, is not acceptable. {@link #field()} names the offending field (in the JSON's own spelling,
 * e.g. {@code rtspUrl}) so that an API can answer with a message a client can act on; it is empty when the input as a
 * whole is unusable (malformed JSON, not an object).
 */
public final class InvalidWorkItemException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    /** A problem with one field. */
    public InvalidWorkItemException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** A problem with the input as a whole. */
    public static InvalidWorkItemException malformed(String message) {
        return new InvalidWorkItemException(null, message);
    }

    /** The field at fault, if one is. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
