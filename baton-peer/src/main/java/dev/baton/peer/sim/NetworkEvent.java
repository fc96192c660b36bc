package dev.baton.peer.sim;

import dev.baton.peer.transport.DropReason;
import dev.baton.peer.transport.PeerAddress;

/**
 * What happened to a message in the simulated network, as seen by a {@link NetworkListener}. Every message sent
 * gives one {@link Sent} (unless the sender was down: then one {@link Dropped}), and then, per copy, one
 * {@link Delivered} or {@link Dropped}.
 *
 * @param <M> the protocol's message type
 */
public sealed interface NetworkEvent<M> {

    /** The network clock's {@code nanoTime()} when it happened. */
    long atNanos();

    PeerAddress from();

    PeerAddress to();

    M message();

    /** A live transport handed a message to the network. */
    record Sent<M>(long atNanos, PeerAddress from, PeerAddress to, M message) implements NetworkEvent<M> {
    }

    /** A copy reached the receiver's handler; {@code duplicate} marks the second copy of a duplicated message. */
    record Delivered<M>(long atNanos, PeerAddress from, PeerAddress to, M message, boolean duplicate)
            implements NetworkEvent<M> {
    }

    /** A message (or one copy) that will never arrive, and why. */
    record Dropped<M>(long atNanos, PeerAddress from, PeerAddress to, M message, DropReason reason)
            implements NetworkEvent<M> {
    }
}
