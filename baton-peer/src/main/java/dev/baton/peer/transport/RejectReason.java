package dev.baton.peer.transport;

import java.util.Locale;

/**
 * Why a transport closed a connection because of what the other side sent. Each has a counter in
 * {@link TransportStats#rejected(RejectReason)}; {@link #label()} is the name used in logs and metrics.
 */
public enum RejectReason {
    /** A frame without a type byte, a negative length, or a DATA payload the {@link MessageCodec} refused. */
    MALFORMED,
    /** A frame whose length prefix exceeds the configured maximum frame size. */
    OVERSIZED,
    /** A frame type this version does not know. */
    UNKNOWN_FRAME_TYPE,
    /** A greet from a node of another cluster. */
    WRONG_CLUSTER,
    /** A greet with another protocol version. */
    VERSION_MISMATCH,
    /** Authentication failed or was skipped: wrong secret, secret on one side only, DATA before authentication. */
    UNAUTHENTICATED,
    /**
     * A handshake that broke the rules: not a Baton greet, DATA or a second greet at the wrong moment, a peer that
     * answers under another address than the one dialled or claims this node's address, no greet in time.
     */
    BAD_GREET;

    /** Lower-case name, e.g. {@code unknown_frame_type}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
