package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;
import java.util.Comparator;
import java.util.Objects;

/**
 * A proposal number of the quorum election: one Paxos instance per {@code version}, and within it ballots ordered by
 * {@code round}, then by the proposer's address. Never a wall-clock id: two proposers can never make the same ballot
 * (their addresses differ), and a proposer that is refused retries with a round above every round it was told of.
 *
 * <p>Round {@value #HANDOVER_ROUND} is the hand-over ballot: only the successor a resigning leader of
 * {@code version - 1} named uses it, once per resignation, for itself. It is the lowest ballot of the instance and
 * has one owner, so no value can have been accepted under a lower one, and its proposer may skip phase 1.
 *
 * @param version  the Paxos instance: the version (term) the election decides the leader of
 * @param round    the attempt within the instance, from 0; {@value #HANDOVER_ROUND} for the hand-over ballot
 * @param proposer the node that made the ballot
 */
public record Ballot(long version, long round, PeerAddress proposer) implements Comparable<Ballot> {

    /** The round of the hand-over ballot, below every ordinary round. */
    public static final long HANDOVER_ROUND = -1;

    private static final Comparator<Ballot> ORDER = Comparator.comparingLong(Ballot::version)
            .thenComparingLong(Ballot::round).thenComparing(Ballot::proposer);

    public Ballot {
        Objects.requireNonNull(proposer, "proposer");
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1, was " + version);
        }
        if (round < HANDOVER_ROUND) {
            throw new IllegalArgumentException("round must be at least " + HANDOVER_ROUND + ", was " + round);
        }
    }

    /** True for the hand-over ballot (round {@value #HANDOVER_ROUND}). */
    public boolean handover() {
        return round == HANDOVER_ROUND;
    }

    @Override
    public int compareTo(Ballot other) {
        return ORDER.compare(this, other);
    }

    /** True if this ballot is ordered after {@code other}; every ballot is after {@code null}. */
    public boolean after(Ballot other) {
        return other == null || compareTo(other) > 0;
    }

    @Override
    public String toString() {
        return "(" + version + ", " + round + ", " + proposer + ")";
    }
}
