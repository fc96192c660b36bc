package dev.baton.peer.transport.internal;

/**
 * The one-byte type after a frame's length prefix. The codes are part of the wire format: never renumber them.
 * See {@code docs/peer.md} for each payload's layout.
 */
public enum FrameType {
    /** Sent first by the side that connected (seed 003's active-greet). */
    GREET_ACTIVE(1),
    /** The accepting side's reply (seed 003's passive-greet), saying whether it keeps this connection. */
    GREET_PASSIVE(2),
    /** With a shared secret: the accepting side's nonce and its proof of the secret. */
    AUTH_CHALLENGE(3),
    /** With a shared secret: the connecting side's proof of the secret. */
    AUTH_RESPONSE(4),
    /** One encoded protocol message. */
    DATA(5),
    /** Sent before closing a connection on purpose: a reason and a human-readable detail. */
    CLOSE(6);

    private static final FrameType[] BY_CODE = new FrameType[7];

    static {
        for (FrameType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type for {@code code}, or {@code null} if there is none. */
    public static FrameType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
