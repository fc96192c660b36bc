package dev.baton.core;

import java.time.Instant;
import java.util.Optional;

/**
 * Everything an {@link Election} tells its listeners. Every event carries the wall-clock time it happened at.
 *
 * <p>Seed 000's event names map onto these: {@code election-started} -> {@link ElectionStarted},
 * {@code election-completed} -> {@link ElectionCompleted}, {@code master-acquired} -> {@link LeadershipAcquired},
 * {@code master-lost} -> {@link LeadershipLost}, {@code slave-registered} -> {@link MemberJoined},
 * {@code slave-removed} -> {@link MemberRemoved}, {@code error} -> {@link ElectionError}.
 */
public sealed interface ElectionEvent {

    /** When the event happened, wall clock. */
    Instant at();

    /** The seed-style kebab-case name of this event, e.g. {@code leadership-acquired}. */
    String name();

    /** This node started contending: at start, after a release or expiry, or after losing leadership. */
    record ElectionStarted(Instant at) implements ElectionEvent {
        public String name() {
            return "election-started";
        }
    }

    /** A round of election resolved: this node leads, or it follows {@code leader}. */
    record ElectionCompleted(Instant at, boolean leader, Optional<LeaderInfo> currentLeader) implements ElectionEvent {
        public String name() {
            return "election-completed";
        }
    }

    /**
     * This node became leader. By the time a listener runs it may already have lost the leadership again: check
     * {@link Leadership#isValid()} before acting and fence writes with {@link Leadership#term()}.
     */
    record LeadershipAcquired(Instant at, Leadership leadership) implements ElectionEvent {
        public String name() {
            return "leadership-acquired";
        }

        public long term() {
            return leadership.term();
        }
    }

    /** This node stopped being leader of {@code term}; it must stop acting as leader at once. */
    record LeadershipLost(Instant at, long term, LossReason reason) implements ElectionEvent {
        public String name() {
            return "leadership-lost";
        }
    }

    /** The leader this node knows of changed (or there is none now). Delivered on every node. */
    record LeaderChanged(Instant at, Optional<LeaderInfo> leader) implements ElectionEvent {
        public String name() {
            return "leader-changed";
        }
    }

    /** A member joined the group. Delivered on the leader only (seed 000's {@code slave-registered}). */
    record MemberJoined(Instant at, NodeInfo member) implements ElectionEvent {
        public String name() {
            return "member-joined";
        }
    }

    /** A member's state changed. Delivered on the leader only. */
    record MemberStateChanged(Instant at, NodeInfo member, MemberState from, MemberState to) implements ElectionEvent {
        public String name() {
            return "member-state-changed";
        }
    }

    /**
     * A member left or its registration expired. Delivered on the leader only (seed 000's {@code slave-removed}).
     */
    record MemberRemoved(Instant at, String nodeId) implements ElectionEvent {
        public String name() {
            return "member-removed";
        }
    }

    /** Something failed (the store is unreachable, a call timed out). The election keeps running and retries. */
    record ElectionError(Instant at, String message, Throwable cause) implements ElectionEvent {
        public String name() {
            return "error";
        }
    }

    /** Why a leadership ended. */
    enum LossReason {
        /** This node gave the leadership up: {@code stepDown()} or {@code close()}. */
        RELEASED,
        /** A renewal found the lease held by another node or another term. */
        LEASE_TAKEN,
        /** No renewal succeeded before the local deadline (store unreachable, slow, or this process paused). */
        EXPIRED_LOCALLY
    }
}
