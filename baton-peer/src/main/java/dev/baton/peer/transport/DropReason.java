package dev.baton.peer.transport;

import java.util.Locale;

/**
 * Why a message was dropped instead of delivered; counted in {@link TransportStats#dropped(DropReason)} and shown to
 * the simulated network's listeners. {@link #label()} is the name used in logs and metrics.
 */
public enum DropReason {
    /** The queue for a peer that is still connecting was full, or the connection's write buffer was. */
    QUEUE_FULL,
    /** The peer could not be reached: connection refused or timed out, or the handshake failed. */
    UNREACHABLE,
    /** The message arrived but no handler was set. */
    NO_HANDLER,
    /** The transport was closed: sent after {@code close()} or still queued when it was called. */
    CLOSED,
    /** Simulated network: lost on the link (its loss probability). */
    LOST,
    /** Simulated network: the link was cut (partition or one-way cut) when it was sent or when it would arrive. */
    PARTITIONED,
    /** Simulated network: the sender or the receiver had crashed or restarted. */
    CRASHED;

    /** Lower-case name, e.g. {@code queue_full}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
