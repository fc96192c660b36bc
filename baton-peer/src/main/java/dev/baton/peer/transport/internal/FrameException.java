package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.RejectReason;

/** A frame broke the wire protocol; the connection is closed for {@link #reason()}. */
public final class FrameException extends Exception {

    private static final long serialVersionUID = 1L;

    private final RejectReason reason;

    public FrameException(RejectReason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    public RejectReason reason() {
        return reason;
    }
}
