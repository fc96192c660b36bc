package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.PeerAddress;
import io.netty.channel.Channel;
import java.util.concurrent.ScheduledFuture;

/**
 * One TCP connection and where its handshake stands. Fields are guarded by the owning {@link NettyConnections}'
 * lock, except {@link #channel}, which is set once when the channel is initialised.
 */
final class Connection {

    enum Phase {
        /** Outbound: TCP connect in progress. */
        CONNECTING,
        /** Inbound: waiting for the connecting side's greet. */
        AWAIT_ACTIVE_GREET,
        /** Outbound with a secret: greet sent, waiting for the acceptor's challenge. */
        AWAIT_CHALLENGE,
        /** Inbound with a secret: challenge sent, waiting for the connector's proof. */
        AWAIT_AUTH_RESPONSE,
        /** Outbound: waiting for the passive greet that says whether the acceptor keeps this connection. */
        AWAIT_PASSIVE_GREET,
        /** Both greets exchanged (and authenticated): DATA may flow. */
        ESTABLISHED,
        /** Being closed on purpose; frames still arriving are ignored, except DATA on a once-established one. */
        CLOSING,
        /** Closed. */
        CLOSED
    }

    /** True if this node opened the connection (and sent the active greet). */
    final boolean outbound;
    volatile Channel channel;
    /** The peer: the dialled address (outbound) or the address from its greet (inbound); null before that. */
    PeerAddress remote;
    long remoteIncarnation;
    byte[] localNonce = new byte[0];
    byte[] remoteNonce = new byte[0];
    volatile Phase phase;
    boolean wasEstablished;
    ScheduledFuture<?> handshakeTimer;
    /**
     * Largest frame the peer may send now: {@link Handshake#MAX_FRAME_BYTES} until the handshake completes, then the
     * configured maximum. Read by the {@link FrameDecoder} on the event loop without the lock.
     */
    volatile int frameLimit = Handshake.MAX_FRAME_BYTES;
    /** Inbound and counted against the cap on connections that have not completed the handshake. */
    boolean pending;

    Connection(boolean outbound, PeerAddress remote) {
        this.outbound = outbound;
        this.remote = remote;
        this.phase = outbound ? Phase.CONNECTING : Phase.AWAIT_ACTIVE_GREET;
    }

    boolean isEnding() {
        return phase == Phase.CLOSING || phase == Phase.CLOSED;
    }

    /** For logs: direction, peer and socket address. */
    String describe() {
        String socket = channel == null || channel.remoteAddress() == null ? "" : " (" + channel.remoteAddress() + ")";
        String peer = remote == null ? "unidentified peer" : remote.format();
        return (outbound ? "to " : "from ") + peer + socket;
    }
}
