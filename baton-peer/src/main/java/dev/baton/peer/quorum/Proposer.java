package dev.baton.peer.quorum;

import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.quorum.Acceptor.Verdict;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One run of seed 003's election process on the node that starts it: the {@code LeaderStatusQuery}, then the
 * pre-proposal and the formal proposal, as single-decree Paxos for one version.
 *
 * <ol>
 *   <li><b>Status query.</b> Everyone known is asked whether the leader is healthy; the election goes on only once M
 *       nodes (this one included) say it is not, after everyone answered or a quarter of retryInterval more. A node
 *       that reports a newer healthy leader ends the run: this node joins that leader instead.</li>
 *   <li><b>Version.</b> The election is for the version seen in the status query plus one (exceptional case 1): a
 *       node that meanwhile learns a leader of that version stops, and one that did not joins the same Paxos
 *       instance, which can only decide the leader already decided.</li>
 *   <li><b>Pre-proposal</b> (phase 1): ballot (version, round, this node). M promises are needed; each voter counts
 *       once and only votes for this ballot count. The candidate is the one accepted under the highest ballot any
 *       promise reports, else this node.</li>
 *   <li><b>Formal proposal</b> (phase 2): M acceptances decide the candidate as the leader of the version; the new
 *       leader is announced to everyone.</li>
 *   <li>A refused attempt is retried after a random pause, in a newer instance if an acceptor named one, else with a
 *       round above every round the refusals named. The run gives up after 3 x ttlTimeout (seed: the local election
 *       state is valid that long).</li>
 * </ol>
 * <b>Hand-over.</b> The successor a resigning leader named skips the status query and, in the instance right after
 * the resigned version, also phase 1: it proposes itself under the hand-over ballot ({@link Ballot#HANDOVER_ROUND}),
 * which only it may use there. Refused, it goes on with ordinary rounds from 0.
 *
 * <p>When the candidate is this node, the acceptances double as its first acknowledgements: an acceptor that accepted
 * will not vote in a newer instance for ttlTimeout (see {@link VoteGate#ownVoteDelay}), just as if it had echoed a
 * stamp taken when the formal proposal was sent, so the decided leader holds a majority at once.
 * Confined to the node's scheduler.
 */
final class Proposer {

    private enum Stage { QUERY, WAIT, PRE, FORMAL, DONE }

    /** What the node does with the run's outcome. */
    interface Outcome {

        /** M acceptances: {@code candidate} leads {@code version} (see {@link Elections#onDecided}). */
        void onDecided(long version, PeerAddress candidate, Set<PeerAddress> targets, Set<PeerAddress> backers,
                long backedSince);

        /** A voter said the leader of {@code version} is decided already: follow it. */
        void decidedLeaderReported(PeerAddress who, long version);

        /** A status response names a newer healthy leader: join it instead of electing (ends the run). */
        void healthyLeaderReported(PeerAddress who, long version);

        /** The run gave up or found no election was needed. */
        void electionEnded(Proposer ended);
    }

    private final NodeContext ctx;
    private final KnownLeader known;
    private final VoteGate votes;
    private final Outcome outcome;
    private final boolean resigned;
    private final long resignedTerm;
    private final long startedAt;
    private final long queryId;
    private final long queryVersion;
    private Stage stage = Stage.QUERY;
    private Set<PeerAddress> targets = Set.of();
    private final Set<PeerAddress> unhealthy = new TreeSet<>();
    private final Set<PeerAddress> healthy = new TreeSet<>();
    private long seenVersion;
    private long seenFloor;
    private boolean graceStarted;
    private boolean graceOver;

    private Ballot ballot;
    private final Map<PeerAddress, Verdict> promises = new TreeMap<>();
    private final Set<PeerAddress> accepts = new TreeSet<>();
    private final Set<PeerAddress> refused = new TreeSet<>();
    private long maxRound;
    private long redirect;
    private PeerAddress decidedLeader;
    private long decidedVersion;
    private PeerAddress candidate;
    private long formalSentAt;
    private Cancellable timer = Cancellable.NONE;

    /**
     * @param resignedTerm the term of the leader that resigned naming this node its successor, or 0: then skip the
     *     status query, and tell the acceptors so that they need not wait for ttlTimeout
     */
    Proposer(NodeContext ctx, KnownLeader known, VoteGate votes, Outcome outcome, long resignedTerm) {
        this.ctx = ctx;
        this.known = known;
        this.votes = votes;
        this.outcome = outcome;
        this.resigned = resignedTerm > 0;
        this.resignedTerm = resignedTerm;
        this.startedAt = ctx.clock().nanoTime();
        this.queryId = ctx.random().nextLong();
        this.queryVersion = known.version;
    }

    void start() {
        if (!resigned) {
            query();
            return;
        }
        targets = ctx.electionTargets();
        long version = firstInstance();
        if (version == resignedTerm + 1 && !ctx.config().allowLoneSeedBootstrap()) {
            // The opt-in mode can have two leaders of one version, hence two successors: no exclusive ballot there.
            handover(new Ballot(version, Ballot.HANDOVER_ROUND, ctx.self()));
        } else {
            attempt(new Ballot(version, 0, ctx.self()));
        }
    }

    /** Stops the run without telling the node (it learned a leader, or it is closing). */
    void cancel() {
        stage = Stage.DONE;
        timer.cancel();
    }

    boolean running() {
        return stage != Stage.DONE;
    }

    // ---------------------------------------------------------------- the status query

    private void query() {
        targets = ctx.electionTargets();
        unhealthy.add(ctx.self());
        for (PeerAddress target : targets) {
            ctx.send(target, new LeaderStatusQuery(queryVersion, queryId));
        }
        timer = ctx.scheduler().schedule(ctx.config().retryInterval(), () -> {
            if (stage == Stage.QUERY) {
                finish();
            }
        });
        checkQuery();
    }

    void onStatusResponse(PeerAddress from, LeaderStatusQueryResponse response) {
        if (stage != Stage.QUERY || response.queryId() != queryId || unhealthy.contains(from)
                || healthy.contains(from)) {
            return;
        }
        seenVersion = Math.max(seenVersion, response.leaderVersion());
        seenFloor = Math.max(seenFloor, response.floor());
        if (response.healthy() && response.leader() != null && !response.leader().equals(ctx.self())) {
            healthy.add(from);
            if (response.leaderVersion() > known.version) {
                // A newer leader is alive: join it instead (this ends the run).
                outcome.healthyLeaderReported(response.leader(), response.leaderVersion());
                return;
            }
        } else {
            unhealthy.add(from);
        }
        checkQuery();
    }

    private void checkQuery() {
        int majority = ctx.config().majority();
        if (unhealthy.size() >= majority) {
            if (unhealthy.size() + healthy.size() > targets.size() || graceOver) {
                timer.cancel();
                attempt(new Ballot(firstInstance(), 0, ctx.self()));
            } else if (!graceStarted) {
                // Wait a little for the other answers: a floor one of them reports would otherwise make two
                // proposers start different instances, and the newer would stop the older's leader from forming.
                graceStarted = true;
                timer.cancel();
                timer = ctx.scheduler().schedule(ctx.config().retryInterval().dividedBy(4), () -> {
                    if (stage == Stage.QUERY) {
                        graceOver = true;
                        checkQuery();
                    }
                });
            }
        } else if (healthy.size() > targets.size() + 1 - majority) {
            // Enough nodes see the leader healthy that M unhealthy answers cannot come: no election.
            finish();
        }
    }

    private long firstInstance() {
        long version = Math.max(Math.max(queryVersion, seenVersion), known.version) + 1;
        version = Math.max(version, seenFloor);
        version = Math.max(version, ctx.acceptor().floor());
        return Math.max(version, ctx.acceptor().instance());
    }

    // ---------------------------------------------------------------- Paxos

    private void attempt(Ballot next) {
        if (stage == Stage.DONE) {
            return;
        }
        timer.cancel();
        if (known.version >= next.version()) {
            // Exceptional case 1: a leader of this version is known by now; electing again would be wrong.
            finish();
            return;
        }
        long wait = votes.ownVoteDelay(next.version(), resigned);
        if (wait > 0) {
            // This node's own acceptor would refuse (it heard its leader within ttlTimeout): start when it would not.
            stage = Stage.WAIT;
            timer = ctx.scheduler().schedule(Duration.ofNanos(wait), () -> attempt(next));
            return;
        }
        stage = Stage.PRE;
        ballot = next;
        promises.clear();
        refused.clear();
        accepts.clear();
        maxRound = next.round();
        redirect = 0;
        targets = ctx.electionTargets();
        for (PeerAddress target : targets) {
            ctx.send(target, new PreProposal(next, resigned));
        }
        timer = ctx.scheduler().schedule(ctx.config().retryInterval(), this::endAttempt);
        Verdict own = votes.localPreVote(next, resigned);
        PeerAddress leaderThen = own.refusal() == Refusal.DECIDED ? known.leader : null;
        // This node's own promise counts once it is on disk, like any other node's (it arrives after its write).
        ctx.afterDurable(() -> {
            if (next.equals(ballot)) {
                recordPre(ctx.self(), own, leaderThen);
            }
        });
    }

    /** Phase 2 straight away under the hand-over ballot, for this node itself. */
    private void handover(Ballot next) {
        if (known.version >= next.version()) {
            finish();
            return;
        }
        ballot = next;
        promises.clear();
        refused.clear();
        accepts.clear();
        maxRound = next.round();
        redirect = 0;
        propose(ctx.self());
    }

    void onPreVote(PeerAddress from, PreVote vote) {
        if (stage != Stage.PRE || !vote.ballot().equals(ballot) || promises.containsKey(from)
                || refused.contains(from)) {
            return;
        }
        recordPre(from, new Verdict(vote.accepted(), vote.refusal(), vote.refusalValue(), vote.acceptedBallot(),
                vote.acceptedCandidate()), vote.knownLeader());
    }

    private void recordPre(PeerAddress from, Verdict verdict) {
        recordPre(from, verdict, verdict.refusal() == Refusal.DECIDED ? known.leader : null);
    }

    private void recordPre(PeerAddress from, Verdict verdict, PeerAddress knownLeader) {
        if (stage != Stage.PRE) {
            return;
        }
        if (verdict.accepted()) {
            promises.put(from, verdict);
        } else {
            refuse(from, verdict.refusal(), verdict.value(), knownLeader);
        }
        int majority = ctx.config().majority();
        if (promises.size() >= majority) {
            formal();
        } else if (refused.size() > targets.size() + 1 - majority) {
            endAttempt();
        }
    }

    private void formal() {
        // Adopt the candidate of the highest accepted ballot: it may already be decided.
        Ballot highest = null;
        PeerAddress chosen = ctx.self();
        for (Verdict promise : promises.values()) {
            if (promise.acceptedBallot() != null && promise.acceptedBallot().after(highest)) {
                highest = promise.acceptedBallot();
                chosen = promise.acceptedCandidate();
            }
        }
        propose(chosen);
    }

    /** Phase 2 for {@code chosen} under the current ballot; each phase has retryInterval to gather its votes. */
    private void propose(PeerAddress chosen) {
        stage = Stage.FORMAL;
        candidate = chosen;
        refused.clear();
        timer.cancel();
        timer = ctx.scheduler().schedule(ctx.config().retryInterval(), this::endAttempt);
        formalSentAt = ctx.clock().nanoTime();
        for (PeerAddress target : targets) {
            ctx.send(target, new FormalProposal(ballot, candidate, resigned));
        }
        Verdict own = votes.localFormalVote(ballot, candidate, resigned);
        PeerAddress leaderThen = own.refusal() == Refusal.DECIDED ? known.leader : null;
        Ballot asked = ballot;
        // This node's own acceptance counts once it is on disk: a leader whose own vote was never written must not
        // lead on it (after a restart it would not remember having accepted).
        ctx.afterDurable(() -> {
            if (asked.equals(ballot) && chosen.equals(candidate)) {
                recordFormal(ctx.self(), own, leaderThen);
            }
        });
    }

    void onFormalVote(PeerAddress from, FormalVote vote) {
        if (stage != Stage.FORMAL || !vote.ballot().equals(ballot) || accepts.contains(from)
                || refused.contains(from)) {
            return;
        }
        recordFormal(from, new Verdict(vote.accepted(), vote.refusal(), vote.refusalValue(), null, null),
                vote.knownLeader());
    }

    private void recordFormal(PeerAddress from, Verdict verdict, PeerAddress knownLeader) {
        if (stage != Stage.FORMAL) {
            return;
        }
        if (verdict.accepted()) {
            accepts.add(from);
        } else {
            refuse(from, verdict.refusal(), verdict.value(), knownLeader);
        }
        int majority = ctx.config().majority();
        if (accepts.size() >= majority) {
            stage = Stage.DONE;
            timer.cancel();
            // Accepting this node as candidate, each acceptor backs it from the time the proposal was sent.
            outcome.onDecided(ballot.version(), candidate, targets,
                    candidate.equals(ctx.self()) ? Set.copyOf(accepts) : Set.of(), formalSentAt);
        } else if (refused.size() > targets.size() + 1 - majority) {
            endAttempt();
        }
    }

    private void refuse(PeerAddress from, Refusal refusal, long value, PeerAddress knownLeader) {
        refused.add(from);
        switch (refusal) {
            case HIGHER_BALLOT -> maxRound = Math.max(maxRound, value);
            case NEWER_INSTANCE, BELOW_FLOOR -> redirect = Math.max(redirect, value);
            case DECIDED -> {
                if (knownLeader != null && value > decidedVersion) {
                    decidedVersion = value;
                    decidedLeader = knownLeader;
                }
            }
            default -> {
            }
        }
    }

    private void endAttempt() {
        if (stage != Stage.PRE && stage != Stage.FORMAL) {
            return;
        }
        timer.cancel();
        if (decidedLeader != null) {
            stage = Stage.DONE;
            outcome.decidedLeaderReported(decidedLeader, decidedVersion);
            return;
        }
        long now = ctx.clock().nanoTime();
        if (now - startedAt >= ctx.config().giveUpAfter().toNanos()) {
            finish();
            return;
        }
        Ballot next = redirect > ballot.version()
                ? new Ballot(redirect, 0, ctx.self())
                : new Ballot(ballot.version(), Math.max(maxRound, ballot.round()) + 1, ctx.self());
        stage = Stage.WAIT;
        long pause = ctx.config().retryInterval().toNanos();
        long backoff = pause / 2 + (long) (ctx.random().nextDouble() * pause);
        timer = ctx.scheduler().schedule(Duration.ofNanos(backoff), () -> attempt(next));
    }

    private void finish() {
        stage = Stage.DONE;
        timer.cancel();
        outcome.electionEnded(this);
    }

    @Override
    public String toString() {
        return "Proposer{stage=" + stage + ", ballot=" + ballot + ", promises=" + promises.keySet() + ", accepts="
                + accepts + ", refused=" + refused + "}";
    }
}
