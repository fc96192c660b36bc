package dev.baton.peer.replica;

import java.util.List;
import java.util.Objects;

/**
 * What the members of a serverless group send each other to replicate the work cluster's maps and carry its bus
 * ({@link ReplicatedWorkStore}). Every message that concerns the maps carries the sender's term; a replica remembers
 * the newest term it has seen and refuses anything older, so a deposed leader is fenced by the replicas as well as by
 * its own election.
 */
public sealed interface ReplicaMessage {

    /** A new leader of {@code term} asks for the replica's whole state; the replica refuses older terms from now on. */
    record SnapshotRequest(long term) implements ReplicaMessage {
    }

    /**
     * The answer to a {@link SnapshotRequest}.
     *
     * @param granted    false if the replica has seen a newer term ({@code newestTerm})
     * @param holdsState whether the replica holds a state a leader gave it since it started: false for one that
     *                   started empty and has not been given one yet, whose answer is no vote (it may have held
     *                   writes it no longer has)
     * @param entries    every entry the replica holds, tombstones included (empty if not granted)
     */
    record Snapshot(long term, boolean granted, long newestTerm, boolean holdsState, List<ReplicaEntry> entries)
            implements ReplicaMessage {
        public Snapshot {
            entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        }
    }

    /**
     * The leader's whole state, which replaces the replica's: once after catching up ({@code upTo} 0), and again for a
     * replica that missed writes.
     *
     * @param upTo the leader's last write included
     */
    record Push(long term, long upTo, List<ReplicaEntry> entries) implements ReplicaMessage {
        public Push {
            entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        }
    }

    /** The answer to a {@link Push}: the replica holds every write of {@code term} up to {@code upTo}. */
    record PushAck(long term, long upTo, boolean accepted, long newestTerm) implements ReplicaMessage {
    }

    /** One write of the leader of {@code term}; its entry's version is {@code (term, seq)}. */
    record Write(long term, ReplicaEntry entry) implements ReplicaMessage {
        public Write {
            Objects.requireNonNull(entry, "entry");
        }
    }

    /**
     * The answer to a {@link Write}.
     *
     * @param accepted   the replica holds the write (and every earlier one of the term)
     * @param behind     the replica misses earlier writes of the term: it needs a {@link Push}
     * @param newestTerm the newest term the replica has seen
     */
    record WriteAck(long term, long seq, boolean accepted, boolean behind, long newestTerm) implements ReplicaMessage {
    }

    /**
     * The leader of {@code term} checks that a member holds its state up to its write {@code upTo}, every retry
     * interval: a member that restarted empty, or missed writes, answers {@link WriteAck} {@code behind} and gets a
     * {@link Push}; one that has seen a newer term refuses, and the leader learns it is deposed.
     */
    record Sync(long term, long upTo) implements ReplicaMessage {
    }

    /**
     * A member that started empty asks the others for the newest term they have seen: from enough answers it knows
     * every term it may have promised before it lost its state, and takes a state only from a leader of at least that
     * term.
     */
    record RecoveryQuery() implements ReplicaMessage {
    }

    /** The answer to a {@link RecoveryQuery}: the newest term the member has seen. */
    record RecoveryAnswer(long newestTerm) implements ReplicaMessage {
    }

    /** A message on the bus's {@code channel}, delivered at most once to the subscribers of each member. */
    record Publish(String channel, byte[] message) implements ReplicaMessage {
        public Publish {
            Objects.requireNonNull(channel, "channel");
            Objects.requireNonNull(message, "message");
        }
    }
}
