package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.transport.PeerAddress;
import java.util.Set;
import java.util.TreeSet;

/**
 * The election process as the node runs it: when it may start one (hold-offs after a step-down, the named
 * successor's head start), the {@link Proposer} of the current run, and what the node does with an outcome, its own
 * or one it hears of (a decided leader is learned: followed, or led if it is this node). Confined to the node's
 * scheduler.
 */
final class Elections implements Proposer.Outcome {

    private final NodeContext ctx;
    private final KnownLeader known;
    private final VoteGate votes;
    private final Transitions node;
    private Proposer election;
    private boolean holdingOff;
    private long holdOffUntil;
    private long electionNotBefore;
    // What the proposer that decided this node passes to its leadership: whose acceptances back it, and since when.
    private Set<PeerAddress> decidedBackers = Set.of();
    private long decidedBackedSince;
    private long decidedBackersVersion;

    Elections(NodeContext ctx, KnownLeader known, VoteGate votes, Transitions node) {
        this.ctx = ctx;
        this.known = known;
        this.votes = votes;
        this.node = node;
    }

    /** The running proposer, or {@code null}. */
    Proposer current() {
        return election;
    }

    boolean running() {
        return election != null;
    }

    /** Stops the current run, if any, without an outcome. */
    void cancel() {
        if (election != null) {
            election.cancel();
            election = null;
        }
    }

    /** After a step-down: no election of this node's own until {@code until}. */
    void holdOff(long until) {
        holdingOff = true;
        holdOffUntil = until;
    }

    /** Gives the successor a resigning leader named the first go. */
    void notBefore(long time) {
        electionNotBefore = time;
    }

    /** Whether this node may start an election of its own now. */
    boolean allowedNow() {
        long now = ctx.clock().nanoTime();
        if (holdingOff && now - holdOffUntil < 0) {
            return false;
        }
        holdingOff = false;
        return now - electionNotBefore >= 0;
    }

    /**
     * Starts the election process. {@code resignedTerm}: the term of the leader that resigned naming this node its
     * successor (the election then starts at once), or 0.
     */
    void start(long resignedTerm) {
        boolean resigned = resignedTerm > 0;
        if (election != null && election.running()) {
            if (!resigned) {
                return;
            }
            election.cancel();
        }
        QuorumNode.Phase phase = node.phase();
        if (phase == QuorumNode.Phase.RECOVERING || node.leadingOrElect() || phase == QuorumNode.Phase.CLOSED
                || phase == QuorumNode.Phase.STOPPED || (!resigned && !allowedNow())) {
            return;
        }
        node.openRound();
        election = new Proposer(ctx, known, votes, this, resignedTerm);
        election.start();
        node.publish();
    }

    @Override
    public void electionEnded(Proposer ended) {
        if (election == ended) {
            election = null;
        }
        node.publish();
    }

    /**
     * A proposer saw M formal votes: {@code candidate} leads {@code version}. Announce it to everyone. {@code
     * backers}: when the candidate is this node, the nodes whose acceptance backs it from {@code backedSince} (this
     * node's clock when it sent the formal proposal), so that it holds its majority at once.
     */
    @Override
    public void onDecided(long version, PeerAddress candidate, Set<PeerAddress> targets, Set<PeerAddress> backers,
            long backedSince) {
        election = null;
        Set<PeerAddress> recipients = new TreeSet<>(targets);
        PeerAddress self = ctx.self();
        if (candidate.equals(self)) {
            decidedBackers = backers;
            decidedBackedSince = backedSince;
            decidedBackersVersion = version;
            leadOrDecline(version);
            if (node.leadingOrElect()) {
                // It has announced itself, with a stamp, to every node it knows; the rest of the proposal's targets
                // still need to hear.
                recipients.removeAll(ctx.electionTargets());
            } else {
                recipients.addAll(ctx.electionTargets());
            }
        } else {
            recipients.addAll(ctx.electionTargets());
            recipients.add(candidate);
        }
        recipients.remove(self);
        NewLeader announcement = new NewLeader(version, candidate, NO_STAMP);
        for (PeerAddress recipient : recipients) {
            ctx.send(recipient, announcement);
        }
        if (!candidate.equals(self)) {
            learnLeader(candidate, version);
        }
    }

    /** The backers the decision of {@code version} handed to this node's leadership, once; empty if none. */
    Set<PeerAddress> takeBackers(long version) {
        Set<PeerAddress> backers = decidedBackersVersion == version ? decidedBackers : Set.of();
        decidedBackers = Set.of();
        decidedBackersVersion = 0;
        return backers;
    }

    long backedSince() {
        return decidedBackedSince;
    }

    /** A voter said the leader of a version is decided: follow it. */
    @Override
    public void decidedLeaderReported(PeerAddress who, long version) {
        election = null;
        learnLeader(who, version);
    }

    /** A status response names a newer healthy leader: join it instead of electing. */
    @Override
    public void healthyLeaderReported(PeerAddress who, long version) {
        cancel();
        QuorumNode.Phase phase = node.phase();
        if (phase == QuorumNode.Phase.SEEKING || phase == QuorumNode.Phase.FOLLOWING) {
            node.join(who, version);
        }
    }

    void learnLeader(PeerAddress who, long version) {
        if (who.equals(ctx.self())) {
            leadOrDecline(version);
        } else if (adoptLeader(who, version) && node.phase() != QuorumNode.Phase.RECOVERING) {
            node.becomeFollower(false);
        }
    }

    /**
     * This node is the decided leader of {@code version}: lead, unless it already gave that version up or led it
     * before (a node never leads one version twice, across restarts too: a term is never reused; its members elect
     * anew).
     */
    private void leadOrDecline(long version) {
        if (node.phase() == QuorumNode.Phase.RECOVERING || !adoptLeader(ctx.self(), version)
                || node.leadingOrElect()) {
            return;
        }
        // candidacy: this incarnation itself recorded the version when it accepted its own candidacy.
        if ((version <= ctx.acceptor().lastLed() && version != votes.candidacy())
                || known.resignedVersion == version) {
            known.resignedVersion = version;
            QuorumNode.Phase phase = node.phase();
            if (phase == QuorumNode.Phase.FOLLOWING || phase == QuorumNode.Phase.JOINING) {
                node.seek(true);
            }
            return;
        }
        node.becomeLeaderElect();
    }

    void onNewLeader(PeerAddress from, NewLeader announcement, Following following) {
        if (announcement.version() < known.version) {
            return;
        }
        boolean same = announcement.leader().equals(known.leader) && announcement.version() == known.version;
        if (announcement.leader().equals(ctx.self())) {
            leadOrDecline(announcement.version());
            return;
        }
        if (same && known.resignedVersion == known.version) {
            return;
        }
        if (!(same && node.phase() == QuorumNode.Phase.FOLLOWING)) {
            learnLeader(announcement.leader(), announcement.version());
        }
        if (announcement.stamp() != NO_STAMP && from.equals(announcement.leader())
                && node.phase() == QuorumNode.Phase.FOLLOWING && from.equals(known.current)) {
            following.stamped(announcement.stamp());
        }
    }

    /**
     * Records that {@code who} is the decided leader of {@code version}. False if that contradicts what this node
     * knows (an older version, or another leader of the same version, which only the opt-in lone-seed mode can make).
     */
    boolean adoptLeader(PeerAddress who, long version) {
        if (version < known.version) {
            return false;
        }
        if (version == known.version && known.leader != null && !known.leader.equals(who)) {
            if (!ctx.config().allowLoneSeedBootstrap()) {
                node.reportError("two leaders claimed for version " + version + ": " + known.leader + " and " + who
                        + "; keeping " + known.leader, null);
                return false;
            }
        }
        boolean newer = version > known.version || !who.equals(known.leader);
        if (newer && node.leadingOrElect() && !who.equals(ctx.self())) {
            node.stopLeading(LossReason.LEASE_TAKEN);
        }
        if (newer) {
            if (known.resignedVersion == version) {
                // Only the opt-in mode gets here: another leader of the version this node gave up (an island).
                known.resignedVersion = -1;
            }
            known.leader = who;
            known.version = version;
            ctx.acceptor().raiseHighest(version);
            known.echo = NO_STAMP;
            known.recognising = false;
            // Seed 003: clear the local election state once a new leader is known.
            cancel();
        }
        long now = ctx.clock().nanoTime();
        known.contact = now;
        known.lastSeen = now;
        return true;
    }
}
