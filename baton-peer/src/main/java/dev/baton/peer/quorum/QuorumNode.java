package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeState;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.internal.TickFailures;
import dev.baton.peer.quorum.Acceptor.Verdict;
import dev.baton.peer.quorum.QuorumMessage.BarrierAck;
import dev.baton.peer.quorum.QuorumMessage.BarrierUpdate;
import dev.baton.peer.quorum.QuorumMessage.ClusterAlignment;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAliveAck;
import dev.baton.peer.quorum.QuorumMessage.LeaderQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderRelieve;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.LeaderResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderStatusQueryResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaveCluster;
import dev.baton.peer.quorum.QuorumMessage.MemberStatusUpdate;
import dev.baton.peer.quorum.QuorumMessage.NewLeader;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.quorum.QuorumMessage.Probe;
import dev.baton.peer.quorum.QuorumMessage.ProbeAck;
import dev.baton.peer.quorum.QuorumMessage.ProbeReport;
import dev.baton.peer.quorum.QuorumMessage.ProbeRequest;
import dev.baton.peer.quorum.QuorumMessage.ReJoinCluster;
import dev.baton.peer.quorum.QuorumMessage.RecoveryQuery;
import dev.baton.peer.quorum.QuorumMessage.RecoveryResponse;
import dev.baton.peer.quorum.QuorumMessage.Refusal;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAliveAck;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum membership protocol of one node (seed 003, made safe): a pure state machine driven by its
 * {@link Scheduler}. Every input (a message, a timer, a user command) runs as a scheduler task; the node sends through
 * its {@link Transport}, reads time only through {@link Clock}, draws randomness only from the {@link Random} it is
 * given and keeps what must survive a crash in its {@link DurableState}. It starts no thread and opens no socket.
 *
 * <p>Phases: {@code RECOVERING} (started without saved state, finds its voting barrier), {@code SEEKING} (asks the
 * seeds for the leader; seeds and former members run the election when there is none), {@code JOINING} (asked the
 * leader to admit it), {@code FOLLOWING}, {@code LEADER_ELECT} (decided leader waiting for its first majority of
 * acknowledgements), {@code LEADING}, {@code CLOSED}. The election itself is a {@link Proposer}, the acceptor an
 * {@link Acceptor}, the leader's member table {@link LeaderDuties}, the start without state a {@link Recovery}.
 *
 * <p>Validation (seed 003's sending and receiving principles): only a node leading a version acknowledges keep-alives
 * or changes member states for it; a message that instructs a node (rejoin, relieve, resign, member removed) is acted
 * on only if the node's own view still matches the sender's (same leader, same version).
 */
final class QuorumNode {

    private static final Logger log = LoggerFactory.getLogger(QuorumNode.class);

    enum Phase { CREATED, RECOVERING, SEEKING, JOINING, FOLLOWING, LEADER_ELECT, LEADING, CLOSED }

    private final String group;
    private final PeerAddress self;
    private final String selfId;
    private final QuorumConfig config;
    private final Transport<QuorumMessage> transport;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final NodeOutput output;
    private final TickFailures tickFailures;
    private final Acceptor acceptor;
    private final boolean seed;
    private final long ttl;
    private final long heartbeatTimeout;

    private volatile MemberCard card;
    private Phase phase = Phase.CREATED;
    private long epoch;

    // The newest decided leader this node knows of; never goes back.
    private PeerAddress leader;
    private long leaderVersion;
    // The leader this node follows (or is) now, or null.
    private PeerAddress current;
    private long leaderContact;
    private long resignedVersion = -1;
    private boolean recognising;
    private long recognisedUntil;
    private long echo = NO_STAMP;
    private long lastLeaderSeen;
    private boolean wasMember;
    private boolean holdingOff;
    private long holdOffUntil;
    private long electionNotBefore;
    // The instance of this node's last formal vote and when it was cast (ownVoteDelay).
    private long votedIn;
    private long votedAt;
    // A version this incarnation recorded as one it may lead when it accepted its own candidacy, or -1.
    private long candidacy = -1;
    // What the proposer that decided this node passes to its leadership: whose acceptances back it, and since when.
    private Set<PeerAddress> decidedBackers = Set.of();
    private long decidedBackedSince;
    private long decidedBackersVersion;

    private MemberView view = new MemberView(0);
    private LeaderDuties duties;
    private Leadership leadership;
    // The only handle that moves the leadership's deadline; listeners get the read-only leadership.
    private LeaseDeadline leadershipDeadline;
    private Proposer election;
    private Recovery recovery;
    private final Map<PeerAddress, Long> peers = new TreeMap<>();
    private final ProbeHelper probeHelper = new ProbeHelper(this);
    private PeerAddress joinTarget;
    private Cancellable tickTimer = Cancellable.NONE;
    private Cancellable phaseTimer = Cancellable.NONE;
    private Cancellable deadlineTimer = Cancellable.NONE;

    QuorumNode(String group, PeerAddress self, MemberCard card, QuorumConfig config,
            Transport<QuorumMessage> transport, DurableState durable, Clock clock, Scheduler scheduler,
            Random random, EventDispatcher events) {
        this.group = group;
        this.self = self;
        this.selfId = self.format();
        this.card = card;
        this.config = config;
        this.transport = transport;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.output = new NodeOutput(events, clock);
        this.tickFailures = new TickFailures(log, clock, output, "[" + group + " " + self + "]");
        this.acceptor = new Acceptor(durable);
        this.seed = config.seeds().contains(self);
        this.ttl = config.ttlTimeout().toNanos();
        this.heartbeatTimeout = config.heartbeatTimeout().toNanos();
    }

    // ================================================================ accessors for the parts and the adapter

    QuorumConfig config() {
        return config;
    }

    PeerAddress self() {
        return self;
    }

    Clock clock() {
        return clock;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    Random random() {
        return random;
    }

    Acceptor acceptor() {
        return acceptor;
    }

    Phase phase() {
        return phase;
    }

    long leaderVersion() {
        return leaderVersion;
    }

    /** The newest decided leader this node knows of (it may not follow it any more). */
    PeerAddress leader() {
        return leader;
    }

    /** The leader this node follows or is right now, or {@code null}. */
    PeerAddress currentLeader() {
        return current;
    }

    /** The leader this node currently recognises as holding a valid leadership, or {@code null}. */
    PeerAddress recognisedLeader() {
        if (phase == Phase.LEADING) {
            return leadership != null && leadership.isValid() ? self : null;
        }
        if (phase == Phase.FOLLOWING && recognising && recognisedUntil - clock.nanoTime() > 0) {
            return current;
        }
        return null;
    }

    boolean recovering() {
        return phase == Phase.RECOVERING;
    }

    /** The events and the snapshot other threads read. */
    NodeOutput output() {
        return output;
    }

    MemberCard card() {
        return card;
    }

    /** The deadline of the valid leadership, or {@link QuorumMessage#NO_STAMP}. */
    long leadershipDeadline() {
        return phase == Phase.LEADING && leadership != null ? leadership.deadlineNanos() : NO_STAMP;
    }

    /** The member table this node knows: its own while it leads, else the view its leader sent. */
    List<MemberEntry> members() {
        return duties != null ? duties.entries() : view.members();
    }

    /** The state the leader's table gives {@code address}, while this node leads (for tests). */
    MemberState tableState(PeerAddress address) {
        return duties == null ? null : duties.stateOf(address);
    }

    /** Every node this node may have to talk to in an election: seeds, members, and nodes heard from lately. */
    Set<PeerAddress> electionTargets() {
        Set<PeerAddress> targets = new TreeSet<>(config.seeds());
        targets.addAll(peers.keySet());
        for (MemberEntry entry : members()) {
            targets.add(entry.address());
        }
        if (leader != null) {
            targets.add(leader);
        }
        targets.remove(self);
        return targets;
    }

    // ================================================================ inputs

    void start() {
        if (phase != Phase.CREATED) {
            return;
        }
        long now = clock.nanoTime();
        leaderContact = now;
        lastLeaderSeen = now;
        openRound();
        scheduleTick();
        if (!acceptor.recovered()) {
            if (config.clusterSize() == 1 || config.allowLoneSeedBootstrap()) {
                acceptor.skipRecovery();
                seek(true);
            } else {
                beginRecovery();
            }
        } else {
            seek(true);
        }
        publish();
    }

    void onMessage(PeerAddress from, QuorumMessage message) {
        if (phase == Phase.CREATED || phase == Phase.CLOSED || from.equals(self)) {
            return;
        }
        peers.put(from, clock.nanoTime());
        try {
            dispatch(from, message);
        } catch (UncheckedIOException e) {
            reportError("cannot save the election state; the vote was not sent", e);
        }
        publish();
    }

    private void dispatch(PeerAddress from, QuorumMessage message) {
        if (message instanceof LeaderKeepAlive m) {
            onKeepAlive(from, m);
        } else if (message instanceof LeaderKeepAliveAck m) {
            onKeepAliveAck(from, m);
        } else if (message instanceof LeaderQuery) {
            send(from, new LeaderResponse(healthyLeader(ttl), leaderVersion));
        } else if (message instanceof LeaderResponse m) {
            onLeaderResponse(from, m);
        } else if (message instanceof JoinClusterRequest m) {
            onJoinRequest(from, m);
        } else if (message instanceof JoinClusterResponse m) {
            onJoinResponse(from, m);
        } else if (message instanceof MemberStatusUpdate m) {
            onMemberStatusUpdate(from, m);
        } else if (message instanceof ClusterAlignment m) {
            if (followsForUpdates(from, m.version())) {
                view.align(m.revision(), m.members());
            }
        } else if (message instanceof LeaveCluster m) {
            if (duties != null && m.version() == duties.version()) {
                duties.onLeave(from);
            }
        } else if (message instanceof ReJoinCluster m) {
            onReJoin(from, m);
        } else if (message instanceof SeedKeepAlive m) {
            onSeedKeepAlive(from, m);
        } else if (message instanceof SeedKeepAliveAck) {
            // The seed resolves a conflict itself (LeaderRelieve); nothing to do here.
            return;
        } else if (message instanceof LeaderRelieve m) {
            onLeaderRelieve(from, m);
        } else if (message instanceof LeaderResign m) {
            onLeaderResign(from, m);
        } else if (message instanceof ProbeRequest m) {
            if (phase == Phase.FOLLOWING && from.equals(current) && m.version() == leaderVersion) {
                probeHelper.onRequest(from, m);
            }
        } else if (message instanceof Probe m) {
            send(from, new ProbeAck(m.probeId()));
        } else if (message instanceof ProbeAck m) {
            if (!probeHelper.onAck(from, m) && duties != null) {
                duties.onProbeResult(from, m.probeId(), true);
            }
        } else if (message instanceof ProbeReport m) {
            if (duties != null && m.version() == duties.version()) {
                duties.onProbeResult(m.target(), m.probeId(), m.reachable());
            }
        } else if (message instanceof LeaderStatusQuery m) {
            onStatusQuery(from, m);
        } else if (message instanceof LeaderStatusQueryResponse m) {
            if (election != null) {
                election.onStatusResponse(from, m);
            }
        } else if (message instanceof PreProposal m) {
            Verdict verdict = localPreVote(m.ballot(), m.leaderResigned());
            send(from, new PreVote(m.ballot(), verdict.accepted(), verdict.acceptedBallot(),
                    verdict.acceptedCandidate(), verdict.refusal(), verdict.value(), decidedLeaderFor(verdict)));
        } else if (message instanceof PreVote m) {
            if (election != null) {
                election.onPreVote(from, m);
            }
        } else if (message instanceof FormalProposal m) {
            Verdict verdict = localFormalVote(m.ballot(), m.candidate(), m.leaderResigned());
            send(from, new FormalVote(m.ballot(), verdict.accepted(), verdict.refusal(), verdict.value(),
                    decidedLeaderFor(verdict)));
        } else if (message instanceof FormalVote m) {
            if (election != null) {
                election.onFormalVote(from, m);
            }
        } else if (message instanceof NewLeader m) {
            onNewLeader(from, m);
        } else if (message instanceof RecoveryQuery m) {
            send(from, new RecoveryResponse(m.queryId(), acceptor.highestVersion(),
                    List.copyOf(electionTargets())));
        } else if (message instanceof RecoveryResponse m) {
            if (recovery != null) {
                recovery.onResponse(from, m);
            }
        } else if (message instanceof BarrierUpdate m) {
            acceptor.raiseHighest(m.version());
            send(from, new BarrierAck(m.queryId()));
        } else if (message instanceof BarrierAck m) {
            if (recovery != null) {
                recovery.onAck(from, m.queryId());
            }
        }
    }

    /** Gives up leadership if held; this node then holds off its own elections for ttlTimeout. */
    void stepDown(boolean fromListener, CompletableFuture<Void> done) {
        if (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            holdingOff = true;
            holdOffUntil = clock.nanoTime() + ttl;
            resign(false, fromListener).whenComplete((ignored, error) -> done.complete(null));
            seek(false);
        } else {
            done.complete(null);
        }
        publish();
    }

    /** Leaves the cluster: a leader resigns first (naming a successor), a follower tells its leader. */
    void close(boolean fromListener, CompletableFuture<Void> closed) {
        if (phase == Phase.CLOSED) {
            closed.complete(null);
            return;
        }
        CompletableFuture<Void> handedOver = CompletableFuture.completedFuture(null);
        if (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            handedOver = resign(true, fromListener);
        } else if (phase == Phase.FOLLOWING && current != null) {
            send(current, new LeaveCluster(leaderVersion));
        }
        phase = Phase.CLOSED;
        epoch++;
        tickTimer.cancel();
        phaseTimer.cancel();
        deadlineTimer.cancel();
        if (election != null) {
            election.cancel();
            election = null;
        }
        current = null;
        output.closed(group);
        handedOver.whenComplete((ignored, error) -> closed.complete(null));
    }

    /** Replaces this node's card; a follower tells its leader (a join request from a member updates its card). */
    void updateCard(MemberCard newCard) {
        card = newCard;
        if (duties != null) {
            duties.updateSelf(newCard);
        } else if (phase == Phase.FOLLOWING && current != null) {
            send(current, new JoinClusterRequest(newCard, leaderVersion));
        }
    }

    // ================================================================ periodic work

    private void scheduleTick() {
        tickTimer = scheduler.schedule(config.heartbeatInterval(), this::tick);
    }

    private void tick() {
        if (phase == Phase.CLOSED) {
            return;
        }
        try {
            runTick();
        } catch (RuntimeException e) {
            tickFailures.report("the heartbeat tick", e);
        } finally {
            // Whatever this tick did, the next one comes: one exception must not end keep-alives and check-quorum.
            if (phase != Phase.CLOSED) {
                scheduleTick();
            }
        }
    }

    private void runTick() {
        long now = clock.nanoTime();
        switch (phase) {
            case FOLLOWING -> {
                sendKeepAlive();
                checkLeaderHealth(now);
            }
            case LEADER_ELECT, LEADING -> duties.tick();
            case SEEKING, JOINING -> {
                if (now - lastLeaderSeen >= config.giveUpAfter().toNanos()) {
                    giveUp();
                }
            }
            default -> {
            }
        }
        prunePeers(now);
        publish();
    }

    private void prunePeers(long now) {
        long horizon = config.giveUpAfter().toNanos();
        Iterator<Map.Entry<PeerAddress, Long>> it = peers.entrySet().iterator();
        while (it.hasNext()) {
            if (now - it.next().getValue() > horizon) {
                it.remove();
            }
        }
    }

    // ================================================================ recovery

    private void beginRecovery() {
        recovery = new Recovery(this, random.nextLong());
        enterPhase(Phase.RECOVERING);
        recovery.start();
    }

    void finishRecovery(long barrier) {
        if (phase != Phase.RECOVERING) {
            return;
        }
        acceptor.finishRecovery(barrier);
        log.debug("{} recovered: votes only above version {}", self, barrier);
        seek(true);
        recovery = null;
    }

    // ================================================================ start-up and joining

    /** SEEKING: ask the seeds for the leader every retryInterval; {@code now} asks at once, else after one pause. */
    private void seek(boolean now) {
        enterPhase(Phase.SEEKING);
        joinTarget = null;
        setCurrent(null);
        if (now) {
            seekRound();
        } else {
            scheduleSeekRound();
        }
    }

    private void seekRound() {
        if (phase != Phase.SEEKING) {
            return;
        }
        for (PeerAddress other : otherSeeds()) {
            send(other, new LeaderQuery(acceptor.highestVersion()));
        }
        scheduleSeekRound();
    }

    private void scheduleSeekRound() {
        phaseTimer.cancel();
        long e = epoch;
        phaseTimer = scheduler.schedule(config.retryInterval(), () -> {
            if (epoch == e) {
                endSeekRound();
            }
        });
    }

    private void endSeekRound() {
        if (phase != Phase.SEEKING) {
            return;
        }
        long now = clock.nanoTime();
        if (now - lastLeaderSeen >= config.giveUpAfter().toNanos()) {
            giveUp();
            if (phase != Phase.SEEKING) {
                return;
            }
        }
        if (seed && config.allowLoneSeedBootstrap()) {
            // Seed 003's seed start-up: no other seed named a leader (or answered) this round, so joining failed
            // and this seed leads (opt-in; unsafe under partitions).
            becomeLeaderWithoutElection();
            return;
        }
        if (mayElect()) {
            startElection(0);
        }
        seekRound();
    }

    private List<PeerAddress> otherSeeds() {
        List<PeerAddress> others = new ArrayList<>(config.seeds());
        others.remove(self);
        return others;
    }

    /** Seeds elect when there is no leader; any node elects when the leader it followed is gone. */
    private boolean mayElect() {
        return seed || wasMember;
    }

    private void onLeaderResponse(PeerAddress from, LeaderResponse response) {
        if (phase != Phase.SEEKING) {
            return;
        }
        if (response.leader() == null || response.leader().equals(self)) {
            return;
        }
        if (response.version() < leaderVersion) {
            return;
        }
        join(response.leader(), response.version());
    }

    private void join(PeerAddress target, long version) {
        enterPhase(Phase.JOINING);
        joinTarget = target;
        setCurrent(null);
        if (view.version() != version) {
            // A view for the leader joined, so that updates arriving before the answer are kept (case 2); it keeps
            // the members known so far until that leader's table replaces them.
            view = view.carriedTo(version);
        }
        send(target, new JoinClusterRequest(card, version));
        long e = epoch;
        phaseTimer = scheduler.schedule(config.retryInterval().multipliedBy(2), () -> {
            if (epoch == e) {
                seek(true);
            }
        });
    }

    private void onJoinResponse(PeerAddress from, JoinClusterResponse response) {
        if (phase != Phase.JOINING || !from.equals(joinTarget)) {
            return;
        }
        if (!response.accepted()) {
            log.debug("{}: {} refused to admit it: {}", self, from, response.reason());
            if (response.reason() != null && response.reason().startsWith("cluster full")) {
                reportError("join refused by " + from + ": " + response.reason(), null);
            }
            PeerAddress redirect = response.leader();
            if (redirect != null && !redirect.equals(from) && !redirect.equals(self)
                    && response.version() >= leaderVersion) {
                join(redirect, response.version());
            } else {
                seek(false);
            }
            return;
        }
        if (!adoptLeader(from, response.version())) {
            seek(false);
            return;
        }
        becomeFollower(true);
    }

    private void onJoinRequest(PeerAddress from, JoinClusterRequest request) {
        if (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            duties.onJoin(from, request.card());
        } else {
            send(from, new JoinClusterResponse(false, leaderVersion, healthyLeader(ttl), "not the leader"));
        }
    }

    private void onReJoin(PeerAddress from, ReJoinCluster rejoin) {
        boolean following = (phase == Phase.FOLLOWING && from.equals(current))
                || (phase == Phase.JOINING && from.equals(joinTarget));
        if (following && rejoin.version() == leaderVersion) {
            seek(true);
        }
    }

    /** Three ttlTimeouts without a leader: start over from the seeds, keeping the versions (seed 003, made safe). */
    private void giveUp() {
        lastLeaderSeen = clock.nanoTime();
        if (seed && config.allowLoneSeedBootstrap()) {
            becomeLeaderWithoutElection();
            return;
        }
        wasMember = false;
        view = new MemberView(0);
        if (election != null) {
            election.cancel();
            election = null;
        }
        seek(true);
    }

    // ================================================================ following

    /**
     * Follows {@link #leader}. A node that learned of the leader from an election (not by joining) also sends its
     * card: the leader may have admitted it from a keep-alive alone, without knowing its identifier or address.
     */
    private void becomeFollower(boolean joined) {
        enterPhase(Phase.FOLLOWING);
        if (view.version() != leaderVersion) {
            view = view.carriedTo(leaderVersion);
        }
        // Until the leader's table arrives (one round trip), this node knows at least its leader: should that leader
        // die within it and this node be elected, its table must hold the dead leader, to be found silent and removed.
        view.assumeLeader(leader);
        wasMember = true;
        setCurrent(leader);
        closeRound(false);
        sendKeepAlive();
        if (!joined) {
            send(current, new JoinClusterRequest(card, leaderVersion));
        }
    }

    private void sendKeepAlive() {
        // A node that promised a newer election no longer backs this leader: no echo, so it is not counted.
        long supported = acceptor.instance() > leaderVersion ? NO_STAMP : echo;
        send(current, new LeaderKeepAlive(leaderVersion, clock.nanoTime(), supported, view.revision()));
    }

    private void onKeepAliveAck(PeerAddress from, LeaderKeepAliveAck ack) {
        long now = clock.nanoTime();
        if (phase != Phase.FOLLOWING || !from.equals(current) || ack.version() != leaderVersion
                || now - ack.sentAtEcho() < 0) {
            return;
        }
        boolean first = echo == NO_STAMP;
        leaderContact = now;
        lastLeaderSeen = now;
        if (echo == NO_STAMP || ack.stamp() - echo > 0) {
            echo = ack.stamp();
        }
        if (ack.validForNanos() > 0) {
            // The ack was sent after our keep-alive, so the leader is valid at least until our send time plus what
            // it reported; the drift allowance keeps the window inside the leader's own deadline.
            long until = ack.sentAtEcho() + (long) (ack.validForNanos() * (1 - config.maxClockDrift()));
            if (!recognising || until - recognisedUntil > 0) {
                recognisedUntil = until;
            }
            recognising = true;
        }
        if (first) {
            // Echo the first stamp at once: the new leader needs a majority of echoes to become valid.
            sendKeepAlive();
        }
    }

    private void checkLeaderHealth(long now) {
        if (resignedVersion == leaderVersion || now - leaderContact >= ttl) {
            // Seed 003: no ack for ttlTimeout, so reset the local leader and start the election process.
            loseLeader();
        }
    }

    private void loseLeader() {
        log.debug("{}: leader {} of version {} is gone", self, current, leaderVersion);
        seek(true);
        openRound();
        if (mayElect() && electionAllowedNow()) {
            startElection(0);
        }
    }

    private void onMemberStatusUpdate(PeerAddress from, MemberStatusUpdate update) {
        if (duties != null || !followsForUpdates(from, update.version())) {
            return;
        }
        MemberEntry entry = update.member();
        if (entry.address().equals(self) && entry.state() == MemberState.REMOVED) {
            // The leader no longer counts this node as a member; act only if we still follow that leader.
            if (phase == Phase.FOLLOWING) {
                join(current, leaderVersion);
            }
            return;
        }
        view.apply(entry);
    }

    /** Receiving validation for table updates: from the leader this node follows or is joining, same version. */
    private boolean followsForUpdates(PeerAddress from, long version) {
        if (phase == Phase.FOLLOWING) {
            return from.equals(current) && version == leaderVersion;
        }
        return phase == Phase.JOINING && from.equals(joinTarget) && version == view.version();
    }

    private void onLeaderResign(PeerAddress from, LeaderResign resign) {
        if (!from.equals(leader) || resign.version() != leaderVersion) {
            return;
        }
        resignedVersion = resign.version();
        if (resign.leaving()) {
            view.remove(from);
        }
        if ((phase == Phase.FOLLOWING && from.equals(current)) || (phase == Phase.JOINING && from.equals(joinTarget))) {
            seek(true);
            openRound();
        }
        if (self.equals(resign.successor())) {
            startElection(resign.version());
        } else {
            // Give the named successor the first go.
            electionNotBefore = clock.nanoTime() + heartbeatTimeout;
        }
    }

    // ================================================================ leading

    private void onKeepAlive(PeerAddress from, LeaderKeepAlive keepAlive) {
        // Only a node leading that version answers (sending validation); a keep-alive for a version this node has
        // not learned it leads is never taken as news of its own election: it may be a stale one from a follower of
        // an earlier incarnation of this node.
        if ((phase == Phase.LEADING || phase == Phase.LEADER_ELECT) && keepAlive.version() == leaderVersion) {
            duties.onKeepAlive(from, keepAlive);
        }
    }

    private void becomeLeaderElect() {
        acceptor.recordLeading(leaderVersion);
        candidacy = -1;
        enterPhase(Phase.LEADER_ELECT);
        wasMember = true;
        setCurrent(self);
        duties = new LeaderDuties(this, leaderVersion, card, view.members());
        duties.announce();
        if (decidedBackersVersion == leaderVersion) {
            duties.backedByVotes(decidedBackers, decidedBackedSince);
        }
        decidedBackers = Set.of();
        decidedBackersVersion = 0;
        long e = epoch;
        phaseTimer = scheduler.schedule(config.heartbeatTimeout(), () -> {
            if (epoch == e && phase == Phase.LEADER_ELECT) {
                log.debug("{}: elected for version {} but no majority acknowledged it", self, leaderVersion);
                duties = null;
                resignedVersion = leaderVersion;
                seek(true);
            }
        });
        duties.recomputeDeadline(clock.nanoTime());
    }

    /** A deadline the acknowledgements of a majority support: starts or extends the leadership. */
    void onMajorityDeadline(long deadline) {
        long now = clock.nanoTime();
        if (deadline - now <= 0) {
            return;
        }
        if (phase == Phase.LEADER_ELECT) {
            becomeLeader(deadline);
        } else if (phase == Phase.LEADING && leadership != null) {
            if (leadershipDeadline.extendTo(deadline)) {
                armDeadline();
            }
        }
    }

    private void becomeLeader(long deadline) {
        enterPhase(Phase.LEADING);
        leadershipDeadline = new LeaseDeadline(deadline);
        leadership = leadershipDeadline.leadership(group, selfId, leaderVersion, clock, output::holds);
        output.acquired(leadership);
        closeRound(true);
        armDeadline();
    }

    private void armDeadline() {
        deadlineTimer.cancel();
        long e = epoch;
        deadlineTimer = scheduler.schedule(Duration.ofNanos(Math.max(0, leadership.deadlineNanos() - clock.nanoTime())),
                () -> {
                    if (epoch != e || phase != Phase.LEADING) {
                        return;
                    }
                    if (clock.nanoTime() - leadership.deadlineNanos() >= 0) {
                        // Check-quorum: no majority acknowledged this leader within heartbeatTimeout.
                        reportError("leadership of version " + leaderVersion + " lost: no majority heard within "
                                + config.heartbeatTimeout().toMillis() + " ms", null);
                        stopLeading(LossReason.EXPIRED_LOCALLY);
                        seek(true);
                    } else {
                        armDeadline();
                    }
                });
    }

    /** Opt-in (allowLoneSeedBootstrap): seed 003's seed that makes itself leader without an election. */
    private void becomeLeaderWithoutElection() {
        long version = Math.max(acceptor.highestVersion(), leaderVersion) + 1;
        log.warn("{} makes itself leader of version {} without a majority (allowLoneSeedBootstrap)", self, version);
        if (adoptLeader(self, version)) {
            becomeLeaderElect();
        }
    }

    /**
     * Stops counting this node as leader (before anyone is told), emits the loss if it held a valid leadership, and
     * returns the version given up.
     */
    private long stopLeading(LossReason reason) {
        long term = leaderVersion;
        boolean wasValid = phase == Phase.LEADING;
        enterPhase(Phase.SEEKING);
        leadership = null;
        leadershipDeadline = null;
        duties = null;
        deadlineTimer.cancel();
        resignedVersion = term;
        output.lost(term, reason, wasValid);
        setCurrent(null);
        openRound();
        return term;
    }

    /**
     * Graceful hand-over: stop leading, let the listeners return from {@code LeadershipLost}, then tell every member
     * (naming the member that acknowledged most recently as the successor) so it can be elected at once.
     */
    private CompletableFuture<Void> resign(boolean leaving, boolean fromListener) {
        PeerAddress successor = duties.successor();
        List<PeerAddress> members = duties.others();
        boolean wasValid = phase == Phase.LEADING;
        long term = leaderVersion;
        leadership = null;
        leadershipDeadline = null;
        duties = null;
        deadlineTimer.cancel();
        resignedVersion = term;
        enterPhase(Phase.SEEKING);
        CompletableFuture<Void> delivered = output.lost(term, LossReason.RELEASED, wasValid);
        setCurrent(null);
        openRound();
        CompletableFuture<Void> sent = new CompletableFuture<>();
        AtomicBoolean once = new AtomicBoolean();
        Runnable sendResignation = () -> {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            LeaderResign message = new LeaderResign(term, successor, leaving);
            for (PeerAddress member : members) {
                transport.send(member, message);
            }
            sent.complete(null);
        };
        if (fromListener) {
            // The listener that asked is itself being delivered to: waiting for it would wait for ourselves.
            scheduler.execute(sendResignation);
            return sent;
        }
        // Bounded wait for slow listeners: without a resignation the members elect after ttlTimeout anyway.
        Cancellable fallback = scheduler.schedule(config.heartbeatTimeout(), sendResignation);
        // The resignation may go out from the thread that delivered the last event: it touches no node state.
        delivered.whenComplete((ignored, error) -> {
            fallback.cancel();
            sendResignation.run();
        });
        return sent;
    }

    private void onSeedKeepAlive(PeerAddress from, SeedKeepAlive keepAlive) {
        PeerAddress mine = phase == Phase.LEADING || phase == Phase.LEADER_ELECT ? self
                : phase == Phase.FOLLOWING ? current : null;
        long myVersion = mine == null ? 0 : leaderVersion;
        send(from, new SeedKeepAliveAck(keepAlive.version(), mine, myVersion));
        if (mine == null) {
            if (phase == Phase.SEEKING && keepAlive.version() >= leaderVersion) {
                join(from, keepAlive.version());
            }
            return;
        }
        if (mine.equals(from) && myVersion == keepAlive.version()) {
            return;
        }
        // LEADER_CONFLICT_PROCESS: the larger version wins, then the larger address.
        boolean senderWins = beats(keepAlive.version(), from, myVersion, mine);
        PeerAddress loser = senderWins ? mine : from;
        long loserVersion = senderWins ? myVersion : keepAlive.version();
        PeerAddress winner = senderWins ? from : mine;
        long winnerVersion = senderWins ? keepAlive.version() : myVersion;
        LeaderRelieve relieve = new LeaderRelieve(loserVersion, winner, winnerVersion);
        if (loser.equals(self)) {
            onLeaderRelieve(self, relieve);
        } else {
            send(loser, relieve);
            if (senderWins && phase == Phase.FOLLOWING) {
                join(winner, winnerVersion);
            }
        }
    }

    private static boolean beats(long versionA, PeerAddress a, long versionB, PeerAddress b) {
        return versionA != versionB ? versionA > versionB : a.compareTo(b) > 0;
    }

    private void onLeaderRelieve(PeerAddress from, LeaderRelieve relieve) {
        boolean leading = phase == Phase.LEADING || phase == Phase.LEADER_ELECT;
        if (!leading || relieve.loserVersion() != leaderVersion || relieve.winner().equals(self)
                || !beats(relieve.winnerVersion(), relieve.winner(), leaderVersion, self)) {
            return;
        }
        log.info("{}: relieved as leader of version {} in favour of {} (version {})", self, leaderVersion,
                relieve.winner(), relieve.winnerVersion());
        // Every member is told, the joining ones too (exceptional case 4), before this node rejoins.
        long term = leaderVersion;
        for (PeerAddress member : duties.others()) {
            send(member, new ReJoinCluster(term));
        }
        stopLeading(LossReason.LEASE_TAKEN);
        join(relieve.winner(), relieve.winnerVersion());
    }

    // ================================================================ election: the acceptor side

    private void onStatusQuery(PeerAddress from, LeaderStatusQuery query) {
        PeerAddress healthy = healthyLeader(heartbeatTimeout);
        send(from, new LeaderStatusQueryResponse(query.queryId(), healthy != null, healthy, leaderVersion,
                acceptor.floor()));
    }

    /** The leader this node sees healthy (heard within {@code within}), itself if it leads, else {@code null}. */
    private PeerAddress healthyLeader(long within) {
        if (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            return self;
        }
        if (phase == Phase.FOLLOWING && resignedVersion != leaderVersion
                && clock.nanoTime() - leaderContact < within) {
            return current;
        }
        return null;
    }

    Verdict localPreVote(Ballot ballot, boolean leaderResigned) {
        Refusal gate = gate(ballot.version(), leaderResigned);
        return acceptor.prePropose(ballot, gate, gateValue(gate));
    }

    Verdict localFormalVote(Ballot ballot, PeerAddress candidate, boolean leaderResigned) {
        Refusal gate = gate(ballot.version(), leaderResigned);
        boolean ownCandidacy = candidate.equals(self);
        long ledBefore = acceptor.lastLed();
        Verdict verdict = acceptor.formalPropose(ballot, candidate, ownCandidacy, gate, gateValue(gate));
        if (verdict.accepted()) {
            // The candidate counts this vote as an acknowledgement taken when it sent the proposal: from now on
            // this node backs it as a follower that echoed that stamp would (see ownVoteDelay).
            votedIn = ballot.version();
            votedAt = clock.nanoTime();
            if (ownCandidacy && ledBefore < ballot.version()) {
                // Recorded by this incarnation, not left by an earlier one that may have led it.
                candidacy = ballot.version();
            }
        }
        return verdict;
    }

    /**
     * This node's own reason not to vote in {@code version}, beyond the acceptor's: it knows the leader of that
     * version, or it still has (or is) a leader it heard within ttlTimeout. The second is the safety timing: every
     * acknowledgement a leader's validity rests on came from a node that will not vote for a successor until
     * ttlTimeout after it (see {@link LeaderDuties}). A node that promised in this instance already no longer backs
     * any older leader, so it is not asked again.
     */
    private Refusal gate(long version, boolean leaderResigned) {
        if (leader != null && leaderVersion >= version) {
            return Refusal.DECIDED;
        }
        if (acceptor.promisedIn(version)) {
            return Refusal.NONE;
        }
        if (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            return Refusal.LEADER_ALIVE;
        }
        if (ownVoteDelay(version, leaderResigned) > 0) {
            return Refusal.LEADER_ALIVE;
        }
        return Refusal.NONE;
    }

    private long gateValue(Refusal gate) {
        return gate == Refusal.DECIDED ? leaderVersion : 0;
    }

    private PeerAddress decidedLeaderFor(Verdict verdict) {
        return verdict.refusal() == Refusal.DECIDED ? leader : null;
    }

    /**
     * Nanoseconds until this node may vote in {@code version} as far as leader contact goes; 0 if it may now. Two
     * contacts count: the last acknowledgement from the leader it follows, and its last formal vote (the candidate it
     * voted for counts that vote towards its first majority, so for ttlTimeout this node backs it as it would back a
     * leader whose stamp it echoed). Neither counts once that leader (or candidate, for its version) resigned.
     */
    long ownVoteDelay(long version, boolean leaderResigned) {
        long now = clock.nanoTime();
        long delay = 0;
        boolean resigned = resignedVersion == leaderVersion || (leaderResigned && leaderVersion == version - 1);
        if (!resigned) {
            delay = leaderContact + ttl - now;
        }
        boolean candidateResigned = resignedVersion == votedIn || (leaderResigned && votedIn == version - 1);
        if (votedIn > 0 && version > votedIn && !candidateResigned) {
            delay = Math.max(delay, votedAt + ttl - now);
        }
        return Math.max(0, delay);
    }

    // ================================================================ election: the proposer side

    private boolean electionAllowedNow() {
        long now = clock.nanoTime();
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
    private void startElection(long resignedTerm) {
        boolean resigned = resignedTerm > 0;
        if (election != null && election.running()) {
            if (!resigned) {
                return;
            }
            election.cancel();
        }
        if (phase == Phase.RECOVERING || phase == Phase.LEADING || phase == Phase.LEADER_ELECT
                || phase == Phase.CLOSED || (!resigned && !electionAllowedNow())) {
            return;
        }
        openRound();
        election = new Proposer(this, resignedTerm);
        election.start();
        publish();
    }

    void electionEnded(Proposer ended) {
        if (election == ended) {
            election = null;
        }
        publish();
    }

    /**
     * A proposer saw M formal votes: {@code candidate} leads {@code version}. Announce it to everyone. {@code
     * backers}: when the candidate is this node, the nodes whose acceptance backs it from {@code backedSince} (this
     * node's clock when it sent the formal proposal), so that it holds its majority at once.
     */
    void onDecided(long version, PeerAddress candidate, Set<PeerAddress> targets, Set<PeerAddress> backers,
            long backedSince) {
        election = null;
        Set<PeerAddress> recipients = new TreeSet<>(targets);
        if (candidate.equals(self)) {
            decidedBackers = backers;
            decidedBackedSince = backedSince;
            decidedBackersVersion = version;
            leadOrDecline(version);
            if (phase == Phase.LEADER_ELECT || phase == Phase.LEADING) {
                // It has announced itself, with a stamp, to every node it knows; the rest of the proposal's targets
                // still need to hear.
                recipients.removeAll(electionTargets());
            } else {
                recipients.addAll(electionTargets());
            }
        } else {
            recipients.addAll(electionTargets());
            recipients.add(candidate);
        }
        recipients.remove(self);
        NewLeader announcement = new NewLeader(version, candidate, NO_STAMP);
        for (PeerAddress recipient : recipients) {
            send(recipient, announcement);
        }
        if (!candidate.equals(self)) {
            learnLeader(candidate, version);
        }
    }

    /** A voter said the leader of a version is decided: follow it. */
    void decidedLeaderReported(PeerAddress who, long version) {
        election = null;
        learnLeader(who, version);
    }

    /** A status response names a newer healthy leader: join it instead of electing. */
    void healthyLeaderReported(PeerAddress who, long version) {
        if (election != null) {
            election.cancel();
            election = null;
        }
        if (phase == Phase.SEEKING || phase == Phase.FOLLOWING) {
            join(who, version);
        }
    }

    private void learnLeader(PeerAddress who, long version) {
        if (who.equals(self)) {
            leadOrDecline(version);
        } else if (adoptLeader(who, version) && phase != Phase.RECOVERING) {
            becomeFollower(false);
        }
    }

    /**
     * This node is the decided leader of {@code version}: lead, unless it already gave that version up or led it
     * before (a node never leads one version twice, across restarts too: a term is never reused; its members elect
     * anew).
     */
    private void leadOrDecline(long version) {
        if (phase == Phase.RECOVERING || !adoptLeader(self, version)
                || phase == Phase.LEADING || phase == Phase.LEADER_ELECT) {
            return;
        }
        // candidacy: this incarnation itself recorded the version when it accepted its own candidacy.
        if ((version <= acceptor.lastLed() && version != candidacy) || resignedVersion == version) {
            resignedVersion = version;
            if (phase == Phase.FOLLOWING || phase == Phase.JOINING) {
                seek(true);
            }
            return;
        }
        becomeLeaderElect();
    }

    private void onNewLeader(PeerAddress from, NewLeader announcement) {
        if (announcement.version() < leaderVersion) {
            return;
        }
        boolean same = announcement.leader().equals(leader) && announcement.version() == leaderVersion;
        if (announcement.leader().equals(self)) {
            leadOrDecline(announcement.version());
            return;
        }
        if (same && resignedVersion == leaderVersion) {
            return;
        }
        if (!(same && phase == Phase.FOLLOWING)) {
            learnLeader(announcement.leader(), announcement.version());
        }
        if (announcement.stamp() != NO_STAMP && from.equals(announcement.leader()) && phase == Phase.FOLLOWING
                && from.equals(current)) {
            leaderContact = clock.nanoTime();
            lastLeaderSeen = leaderContact;
            if (echo == NO_STAMP || announcement.stamp() - echo > 0) {
                echo = announcement.stamp();
            }
            sendKeepAlive();
        }
    }

    /**
     * Records that {@code who} is the decided leader of {@code version}. False if that contradicts what this node
     * knows (an older version, or another leader of the same version, which only the opt-in lone-seed mode can make).
     */
    private boolean adoptLeader(PeerAddress who, long version) {
        if (version < leaderVersion) {
            return false;
        }
        if (version == leaderVersion && leader != null && !leader.equals(who)) {
            if (!config.allowLoneSeedBootstrap()) {
                reportError("two leaders claimed for version " + version + ": " + leader + " and " + who
                        + "; keeping " + leader, null);
                return false;
            }
        }
        boolean newer = version > leaderVersion || !who.equals(leader);
        if (newer && (phase == Phase.LEADING || phase == Phase.LEADER_ELECT) && !who.equals(self)) {
            stopLeading(LossReason.LEASE_TAKEN);
        }
        if (newer) {
            if (resignedVersion == version) {
                // Only the opt-in mode gets here: another leader of the version this node gave up (an island).
                resignedVersion = -1;
            }
            leader = who;
            leaderVersion = version;
            acceptor.raiseHighest(version);
            echo = NO_STAMP;
            recognising = false;
            if (election != null) {
                // Seed 003: clear the local election state once a new leader is known.
                election.cancel();
                election = null;
            }
        }
        long now = clock.nanoTime();
        leaderContact = now;
        lastLeaderSeen = now;
        return true;
    }

    // ================================================================ helpers

    void send(PeerAddress to, QuorumMessage message) {
        if (to == null || to.equals(self) || phase == Phase.CLOSED && !(message instanceof LeaderResign)) {
            return;
        }
        transport.send(to, message);
    }

    private void enterPhase(Phase next) {
        if (phase == Phase.CLOSED) {
            return;
        }
        phase = next;
        epoch++;
        phaseTimer.cancel();
        if (next != Phase.FOLLOWING) {
            recognising = false;
        }
        publish();
    }

    private void setCurrent(PeerAddress who) {
        if (java.util.Objects.equals(current, who)) {
            return;
        }
        current = who;
        if (who != null) {
            echo = who.equals(self) ? echo : NO_STAMP;
            recognising = false;
        }
        output.leaderChanged(who == null ? null : new LeaderInfo(who.format(), leaderVersion));
    }

    private void openRound() {
        output.roundStarted();
    }

    private void closeRound(boolean leading) {
        output.roundCompleted(leading);
    }

    // Member events are the leader's (seed 000: slave-registered and slave-removed are emitted on the master only).

    void memberJoined(MemberEntry entry) {
        if (phase == Phase.LEADING) {
            output.memberJoined(QuorumMembership.nodeInfo(entry, self));
        }
    }

    void memberStateChanged(MemberEntry entry, MemberState from, MemberState to) {
        if (phase == Phase.LEADING) {
            output.memberStateChanged(QuorumMembership.nodeInfo(entry, self), from, to);
        }
    }

    void memberRemoved(PeerAddress address) {
        if (phase == Phase.LEADING) {
            output.memberRemoved(address.format());
        }
    }

    private void reportError(String message, Throwable cause) {
        log.warn("[{} {}] {}", group, self, message);
        output.error(message, cause);
    }

    /** Refreshes what other threads read. */
    private void publish() {
        if (phase == Phase.CLOSED) {
            return;
        }
        output.snapshot(switch (phase) {
            case LEADING -> NodeState.LEADER;
            case LEADER_ELECT -> NodeState.CANDIDATE;
            default -> election != null ? NodeState.CANDIDATE : NodeState.FOLLOWER;
        }, problem());
    }

    private String problem() {
        long now = clock.nanoTime();
        return switch (phase) {
            case RECOVERING -> "recovering after a start without saved state: " + recovery.describe();
            case FOLLOWING -> now - leaderContact >= heartbeatTimeout
                    ? "leader " + current + " not heard for " + Duration.ofNanos(now - leaderContact).toMillis() + " ms"
                    : null;
            case SEEKING, JOINING -> now - lastLeaderSeen >= ttl
                    ? "no leader for " + Duration.ofNanos(now - lastLeaderSeen).toMillis() + " ms (a majority of "
                            + config.majority() + " of " + config.clusterSize() + " nodes must take part)"
                    : null;
            default -> null;
        };
    }

    @Override
    public String toString() {
        return "QuorumNode{" + self + ", " + phase + ", leader=" + leader + "@" + leaderVersion + ", " + acceptor + "}";
    }
}
