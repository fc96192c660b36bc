package dev.baton.peer.transport;

/** A {@link MessageCodec} refused a payload; the message says why (unknown type, unknown field, not JSON, ...). */
public final class MalformedMessageException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String reason) {
        super(reason);
    }

    public MalformedMessageException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
