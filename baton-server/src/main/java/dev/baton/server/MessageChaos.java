package dev.baton.server;

import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The switch that duplicates, reorders or delays a serverless node's protocol messages, for the fault harness
 * ({@code --chaos-hooks}, the stdin commands {@code duplicate}, {@code reorder}, {@code delay} and {@code heal});
 * {@link MessageChaosTransport} implements it. Each is a fault the protocols must tolerate anyway: a network may
 * deliver a message twice, late, or after one sent later. Thread-safe.
 */
interface MessageChaos {

    /** What happens to each message a {@link Setting} applies to. */
    enum Mode {
        /** Delivered as sent (the setting of a healed node). */
        NONE,
        /** Delivered, and once more a random 0 to {@code delay} later. */
        DUPLICATE,
        /** Held back a random 0 to {@code delay}, so that later messages overtake it. */
        REORDER,
        /** Held back {@code delay}, in order. */
        DELAY
    }

    /**
     * What happens to the messages to and from {@code peers} (every peer if empty).
     *
     * @param delay the longest a message or its copy is held back ({@link Mode#DELAY}: exactly this)
     */
    record Setting(Mode mode, Duration delay, Set<PeerAddress> peers) {

        /** Every message as sent. */
        static final Setting NONE = new Setting(Mode.NONE, Duration.ZERO, Set.of());

        public Setting {
            Objects.requireNonNull(mode, "mode");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative: " + delay);
            }
            peers = Set.copyOf(peers);
        }

        /** Whether a message to or from {@code peer} is treated by this setting. */
        boolean appliesTo(PeerAddress peer) {
            return mode != Mode.NONE && (peers.isEmpty() || peers.contains(peer));
        }
    }

    /** Treats every message as {@code setting} says from now on, replacing the previous setting. */
    void mangle(Setting setting);

    /** The setting now; {@link Setting#NONE} when healed. */
    Setting setting();
}
