package dev.baton.peer.quorum;

import dev.baton.peer.transport.PeerAddress;

/**
 * What a node must remember across a crash for the quorum election to stay safe: the Paxos acceptor's promise and
 * accepted value for its current instance, the highest version it has seen (versions never go down), the highest it
 * has led, and, after a start without saved state, the barrier below which it may not vote.
 *
 * @param highestVersion    the highest version (term) this node has seen in any way
 * @param barrier           this node votes only in instances above this version (0 unless it recovered)
 * @param recovered         false while a node that started without saved state has not finished recovering
 * @param instance          the Paxos instance (version) the promise and the accepted value belong to, 0 for none
 * @param promised          the highest ballot promised in {@code instance}, or {@code null}
 * @param acceptedBallot    the ballot of the accepted value in {@code instance}, or {@code null}
 * @param acceptedCandidate the accepted value (the candidate), or {@code null}
 * @param lastLed           the highest version this node has led (or, after recovering, may have led): it never
 *                          leads a version up to this again, so a term is never reused across a restart
 */
public record AcceptorState(long highestVersion, long barrier, boolean recovered, long instance, Ballot promised,
        Ballot acceptedBallot, PeerAddress acceptedCandidate, long lastLed) {

    /** The state of a node that has seen nothing yet and need not recover (it has a state from its first start). */
    public static final AcceptorState INITIAL = new AcceptorState(0, 0, true, 0, null, null, null, 0);

    public AcceptorState {
        if (highestVersion < 0 || barrier < 0 || instance < 0 || lastLed < 0) {
            throw new IllegalArgumentException("versions must not be negative");
        }
        if ((acceptedBallot == null) != (acceptedCandidate == null)) {
            throw new IllegalArgumentException("acceptedBallot and acceptedCandidate go together");
        }
    }
}
