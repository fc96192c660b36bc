package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;

/**
 * What this node has towards one peer: the connection messages go to (in handshake or established), the messages
 * waiting for it, and a pending re-dial. Guarded by the owning {@link NettyConnections}' lock.
 */
final class PeerLink {

    final PeerAddress address;
    /** The one connection used for this peer; null when there is none. */
    Connection current;
    /** Encoded messages waiting for {@link #current} to be established, oldest first; bounded. */
    final ArrayDeque<byte[]> waiting = new ArrayDeque<>();
    /** Set after the peer refused our connection in favour of its own: dial again if that never comes. */
    ScheduledFuture<?> redial;

    PeerLink(PeerAddress address) {
        this.address = address;
    }

    boolean isIdle() {
        return current == null && waiting.isEmpty() && redial == null;
    }
}
