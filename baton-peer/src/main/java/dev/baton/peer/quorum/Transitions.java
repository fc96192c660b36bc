package dev.baton.peer.quorum;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;

/**
 * The moves between a node's phases, as its phase objects ({@link Seeking}, {@link Following}, {@link LeaderTerm},
 * {@link Elections}, {@link VoteGate}) ask for them from each other through the node that owns the phase. Confined to
 * the node's scheduler.
 */
interface Transitions {

    QuorumNode.Phase phase();

    /** True while this node leads or is the decided leader waiting for its first majority. */
    default boolean leadingOrElect() {
        return phase() == QuorumNode.Phase.LEADING || phase() == QuorumNode.Phase.LEADER_ELECT;
    }

    void enterPhase(QuorumNode.Phase next);

    /** Schedules {@code action} unless the phase has changed by then; replaces the phase's earlier timer. */
    void phaseTimer(Duration delay, Runnable action);

    /** This node's own card, as it tells its leader. */
    MemberCard card();

    /** The leader this node follows or is now; announces a change to the application. */
    void setCurrent(PeerAddress who);

    void openRound();

    void closeRound(boolean leading);

    void reportError(String message, Throwable cause);

    /** Refreshes what other threads read. */
    void publish();

    /** SEEKING: ask the seeds for the leader; {@code now} asks at once, else after one pause. */
    void seek(boolean now);

    /** JOINING: ask {@code target}, the leader of {@code version}, to admit this node. */
    void join(PeerAddress target, long version);

    /** FOLLOWING the known leader; {@code joined} if it admitted this node (else the card is sent too). */
    void becomeFollower(boolean joined);

    /** LEADER_ELECT for the known leader's version, which is this node's. */
    void becomeLeaderElect();

    /** Stops leading (before anyone is told) and emits the loss; returns the version given up. */
    long stopLeading(LossReason reason);

    /** Starts the election process; {@code resignedTerm} as in {@link Elections#start}. */
    void startElection(long resignedTerm);

    /** Records {@code who} as the decided leader of {@code version}; false if that contradicts what is known. */
    boolean adoptLeader(PeerAddress who, long version);
}
