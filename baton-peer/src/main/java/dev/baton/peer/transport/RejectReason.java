package dev.baton.peer.transport;

import java.util.Locale;

/**
 * Why a transport closed a connection because of what the other side sent, or did not send in time, or refused one
 * outright. Each has a counter in {@link TransportStats#rejected(RejectReason)}; {@link #label()} is the name used in
 * logs and metrics. New reasons may be added; the codes of existing ones do not change.
 */
public enum RejectReason {
    /** A frame without a type byte, a negative length, or a DATA payload the {@link MessageCodec} refused. */
    MALFORMED,
    /** A frame, after the handshake, whose length prefix exceeds the configured maximum frame size. */
    OVERSIZED,
    /**
     * A frame, before the handshake completed, whose length prefix exceeds the handshake frame limit (4 KiB): a
     * stranger, or something that is not a Baton node (an HTTP request, a port scanner).
     */
    OVERSIZED_BEFORE_HANDSHAKE,
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
     * answers under another address than the one dialled or claims this node's address.
     */
    BAD_GREET,
    /** The handshake (and authentication) did not complete within the handshake timeout. */
    HANDSHAKE_TIMEOUT,
    /** A frame stayed incomplete (all but its last bytes sent, say) for longer than the frame timeout. */
    FRAME_TIMEOUT,
    /**
     * An inbound connection refused as soon as it was accepted: as many connections as the cap allows were still in
     * their handshake (a flood of connections, most likely).
     */
    TOO_MANY_PENDING;

    /** Lower-case name, e.g. {@code unknown_frame_type}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
