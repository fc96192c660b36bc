package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.transport.PeerAddress;
import java.util.Objects;

/**
 * The Paxos acceptor of one node: single-decree Paxos per version, with its promise and accepted value saved through
 * the node's {@link Effects} driver, which makes them durable in {@link DurableState} before any vote that depends on
 * them leaves the node.
 *
 * <p>The acceptor takes part in one instance at a time, the newest it has been asked about: a proposal for an older
 * instance is refused ({@link Refusal#NEWER_INSTANCE}), one for a newer instance starts a fresh promise. Leaving an
 * instance is the same as promising "infinity" in it, so each instance on its own is ordinary single-decree Paxos and
 * at most one candidate can be chosen per version. Confined to the node's scheduler.
 */
final class Acceptor {

    /** The outcome of a proposal: accepted (with the value accepted before, for phase 1), or refused and why. */
    record Verdict(boolean accepted, Refusal refusal, long value, Ballot acceptedBallot, PeerAddress acceptedCandidate) {

        static Verdict refuse(Refusal refusal, long value) {
            return new Verdict(false, refusal, value, null, null);
        }
    }

    private final Effects effects;
    private final boolean startedWithoutState;
    private AcceptorState state;

    /** An acceptor starting from what {@code durable} holds, saving through {@code effects}. */
    Acceptor(DurableState durable, Effects effects) {
        this.effects = Objects.requireNonNull(effects, "effects");
        AcceptorState loaded = durable.load().orElse(null);
        this.startedWithoutState = loaded == null;
        this.state = loaded != null ? loaded : new AcceptorState(0, 0, false, 0, null, null, null, 0);
    }

    /** True if nothing was stored when this node started: a first start, or a node that lost its state. */
    boolean startedWithoutState() {
        return startedWithoutState;
    }

    AcceptorState state() {
        return state;
    }

    boolean recovered() {
        return state.recovered();
    }

    long highestVersion() {
        return state.highestVersion();
    }

    /** The lowest instance this acceptor may vote in. */
    long floor() {
        return state.barrier() + 1;
    }

    long instance() {
        return state.instance();
    }

    /** True if this acceptor has promised in {@code version} already (so it no longer backs an older leader). */
    boolean promisedIn(long version) {
        return state.instance() == version && state.promised() != null;
    }

    /** Remembers that versions up to {@code version} have been seen; versions never go down. */
    void raiseHighest(long version) {
        if (version > state.highestVersion()) {
            save(new AcceptorState(version, state.barrier(), state.recovered(), state.instance(), state.promised(),
                    state.acceptedBallot(), state.acceptedCandidate(), state.lastLed()));
        }
    }

    /** The highest version this node has led, or may have led before it lost its state. */
    long lastLed() {
        return state.lastLed();
    }

    /** Saved before this node acts as leader of {@code version}: it will never lead that version again. */
    void recordLeading(long version) {
        if (version > state.lastLed()) {
            save(new AcceptorState(Math.max(state.highestVersion(), version), state.barrier(), state.recovered(),
                    state.instance(), state.promised(), state.acceptedBallot(), state.acceptedCandidate(), version));
        }
    }

    /** Ends recovery: this node may vote only above {@code barrier}. */
    void finishRecovery(long barrier) {
        // Whatever this node led before it lost its state was decided, so it is at most the barrier.
        save(new AcceptorState(Math.max(state.highestVersion(), barrier), Math.max(state.barrier(), barrier), true,
                state.instance(), state.promised(), state.acceptedBallot(), state.acceptedCandidate(),
                Math.max(state.lastLed(), barrier)));
    }

    /** Marks a node that needs no recovery (a single-node cluster, or the opt-in lone-seed mode) as recovered. */
    void skipRecovery() {
        if (!state.recovered()) {
            finishRecovery(state.barrier());
        }
    }

    /**
     * Phase 1 (the pre-proposal). {@code gate} is the node's own reason to refuse ({@link Refusal#NONE} if none):
     * checked after the instance rules, so a stale proposal is told about the newer instance first.
     */
    Verdict prePropose(Ballot ballot, Refusal gate, long gateValue) {
        Verdict early = checkInstance(ballot, gate, gateValue);
        if (early != null) {
            return early;
        }
        AcceptorState s = enter(ballot.version());
        if (!ballot.after(s.promised())) {
            return Verdict.refuse(Refusal.HIGHER_BALLOT, s.promised().round());
        }
        save(new AcceptorState(Math.max(s.highestVersion(), ballot.version()), s.barrier(), s.recovered(),
                ballot.version(), ballot, s.acceptedBallot(), s.acceptedCandidate(), s.lastLed()));
        return new Verdict(true, Refusal.NONE, 0, s.acceptedBallot(), s.acceptedCandidate());
    }

    /**
     * Phase 2 (the formal proposal): accepts {@code candidate} unless a higher ballot was promised. {@code
     * ownCandidacy}: the candidate is this node, so the same write also records the version as one it may lead
     * ({@link #lastLed()}): a candidate that is then decided can lead without another write.
     */
    Verdict formalPropose(Ballot ballot, PeerAddress candidate, boolean ownCandidacy, Refusal gate, long gateValue) {
        Verdict early = checkInstance(ballot, gate, gateValue);
        if (early != null) {
            return early;
        }
        AcceptorState s = enter(ballot.version());
        if (s.promised() != null && ballot.compareTo(s.promised()) < 0) {
            return Verdict.refuse(Refusal.HIGHER_BALLOT, s.promised().round());
        }
        long lastLed = ownCandidacy ? Math.max(s.lastLed(), ballot.version()) : s.lastLed();
        save(new AcceptorState(Math.max(s.highestVersion(), ballot.version()), s.barrier(), s.recovered(),
                ballot.version(), ballot, ballot, candidate, lastLed));
        return new Verdict(true, Refusal.NONE, 0, null, null);
    }

    private Verdict checkInstance(Ballot ballot, Refusal gate, long gateValue) {
        if (!state.recovered()) {
            return Verdict.refuse(Refusal.RECOVERING, 0);
        }
        if (ballot.version() <= state.barrier()) {
            return Verdict.refuse(Refusal.BELOW_FLOOR, floor());
        }
        if (ballot.version() < state.instance()) {
            return Verdict.refuse(Refusal.NEWER_INSTANCE, state.instance());
        }
        if (gate != Refusal.NONE) {
            return Verdict.refuse(gate, gateValue);
        }
        return null;
    }

    /** The state as seen from {@code version}: a newer instance starts with no promise and no accepted value. */
    private AcceptorState enter(long version) {
        if (version == state.instance()) {
            return state;
        }
        return new AcceptorState(state.highestVersion(), state.barrier(), state.recovered(), version, null, null, null,
                state.lastLed());
    }

    /**
     * The new state is this acceptor's at once; the driver makes it durable before anything asked for after this
     * (the vote that depends on it) goes out. An inline save that fails throws before the state changes.
     */
    private void save(AcceptorState next) {
        effects.persist(next);
        state = next;
    }

    @Override
    public String toString() {
        return "Acceptor" + state;
    }
}
