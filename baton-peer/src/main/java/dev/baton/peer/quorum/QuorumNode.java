package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeState;
import dev.baton.core.internal.EventDispatcher;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.internal.TickFailures;
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
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAlive;
import dev.baton.peer.quorum.QuorumMessage.SeedKeepAliveAck;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum membership protocol of one node (seed 003, made safe): a pure state machine driven by its
 * {@link Scheduler}. Every input (a message, a timer, a user command) runs as a scheduler task; the node reads time
 * only through {@link Clock}, draws randomness only from the {@link Random} it is given, and hands what it sends,
 * saves and tells the application to its {@link Effects} driver, which saves a vote durably before the reply that
 * carries it goes out. It starts no thread and opens no socket.
 *
 * <p>This class owns the phase and dispatches each input to the object for that part of the protocol, each working
 * through the narrow {@link NodeContext} and {@link Transitions}: {@code RECOVERING} ({@link Recovery}: started
 * without saved state, finds its voting barrier), {@code SEEKING} and {@code JOINING} ({@link Seeking}), {@code
 * FOLLOWING} ({@link Following}), {@code LEADER_ELECT} and {@code LEADING} (one {@link LeaderTerm} per term, with its
 * {@link LeaderDuties}), {@code CLOSED}. In every phase the node votes through its {@link VoteGate} and runs or learns
 * elections through {@link Elections}; what it knows of its leader is one {@link KnownLeader} they share.
 *
 * <p>Validation (seed 003's sending and receiving principles): only a node leading a version acknowledges keep-alives
 * or changes member states for it; a message that instructs a node (rejoin, relieve, resign, member removed) is acted
 * on only if the node's own view still matches the sender's (same leader, same version).
 */
final class QuorumNode implements NodeContext, Transitions {

    private static final Logger log = LoggerFactory.getLogger(QuorumNode.class);

    enum Phase { CREATED, RECOVERING, SEEKING, JOINING, FOLLOWING, LEADER_ELECT, LEADING, CLOSED }

    private final String group;
    private final PeerAddress self;
    private final QuorumConfig config;
    private final Transport<QuorumMessage> transport;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final NodeOutput output;
    private final Effects effects;
    private final Notices notices;
    private final TickFailures tickFailures;
    private final Acceptor acceptor;
    private final long ttl;
    private final long heartbeatTimeout;

    private volatile MemberCard card;
    private Phase phase = Phase.CREATED;
    private long epoch;

    private final KnownLeader known = new KnownLeader();
    private final VoteGate votes;
    private final Elections elections;
    private final Seeking seeking;
    private final Following following;
    private final SeedConflicts seedConflicts;
    private final ProbeHelper probeHelper;
    private LeaderTerm leading;
    private Recovery recovery;
    private final Map<PeerAddress, Long> peers = new TreeMap<>();
    private Cancellable tickTimer = Cancellable.NONE;
    private Cancellable phaseTimer = Cancellable.NONE;

    QuorumNode(String group, PeerAddress self, MemberCard card, QuorumConfig config,
            Transport<QuorumMessage> transport, DurableState durable, Clock clock, Scheduler scheduler,
            Random random, EventDispatcher events) {
        this.group = group;
        this.self = self;
        this.card = card;
        this.config = config;
        this.transport = transport;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.output = new NodeOutput(events, clock);
        this.effects = Effects.forState(durable, transport, scheduler, group + "-" + self,
                e -> reportError("cannot save the election state; the vote was not sent", e));
        this.notices = new Notices(output, effects);
        this.tickFailures = new TickFailures(log, clock, output, "[" + group + " " + self + "]");
        this.acceptor = new Acceptor(durable, effects);
        this.ttl = config.ttlTimeout().toNanos();
        this.heartbeatTimeout = config.heartbeatTimeout().toNanos();
        this.votes = new VoteGate(this, known, this);
        this.elections = new Elections(this, known, votes, this);
        this.seeking = new Seeking(this, known, this, elections);
        this.following = new Following(this, known, this, elections, seeking);
        this.seedConflicts = new SeedConflicts(this, known, this);
        this.probeHelper = new ProbeHelper(this);
    }

    // ================================================================ the context its parts work through

    @Override
    public QuorumConfig config() {
        return config;
    }

    @Override
    public PeerAddress self() {
        return self;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public Random random() {
        return random;
    }

    @Override
    public Acceptor acceptor() {
        return acceptor;
    }

    @Override
    public void send(PeerAddress to, QuorumMessage message) {
        if (to == null || to.equals(self) || phase == Phase.CLOSED && !(message instanceof LeaderResign)) {
            return;
        }
        effects.send(to, message);
    }

    @Override
    public Set<PeerAddress> electionTargets() {
        Set<PeerAddress> targets = new TreeSet<>(config.seeds());
        targets.addAll(peers.keySet());
        for (MemberEntry entry : members()) {
            targets.add(entry.address());
        }
        if (known.leader != null) {
            targets.add(known.leader);
        }
        targets.remove(self);
        return targets;
    }

    // ================================================================ what the adapter and the tests read

    @Override
    public Phase phase() {
        return phase;
    }

    long leaderVersion() {
        return known.version;
    }

    /** The newest decided leader this node knows of (it may not follow it any more). */
    PeerAddress leader() {
        return known.leader;
    }

    /** The leader this node follows or is right now, or {@code null}. */
    PeerAddress currentLeader() {
        return known.current;
    }

    /** The leader this node currently recognises as holding a valid leadership, or {@code null}. */
    PeerAddress recognisedLeader() {
        if (phase == Phase.LEADING) {
            Leadership leadership = leading == null ? null : leading.leadership();
            return leadership != null && leadership.isValid() ? self : null;
        }
        if (phase == Phase.FOLLOWING && known.recognising && known.recognisedUntil - clock.nanoTime() > 0) {
            return known.current;
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

    @Override
    public MemberCard card() {
        return card;
    }

    /** The member table this node knows: its own while it leads, else the view its leader sent. */
    List<MemberEntry> members() {
        return leading != null ? leading.duties().entries() : known.view.members();
    }

    /** The state the leader's table gives {@code address}, while this node leads (for tests). */
    MemberState tableState(PeerAddress address) {
        return leading == null ? null : leading.duties().stateOf(address);
    }

    // ================================================================ inputs

    void start() {
        if (phase != Phase.CREATED) {
            return;
        }
        long now = clock.nanoTime();
        known.contact = now;
        known.lastSeen = now;
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

    /**
     * Hands {@code message} to the part that handles its type. Every type of the sealed {@link QuorumMessage} has a
     * branch (a test sends one of each); a type without one is a programming error and fails loudly.
     */
    private void dispatch(PeerAddress from, QuorumMessage message) {
        if (message instanceof LeaderKeepAlive m) {
            // Only a node leading that version answers (sending validation); a keep-alive for a version this node
            // has not learned it leads is never taken as news of its own election: it may be a stale one from a
            // follower of an earlier incarnation of this node.
            if (leadingOrElect() && m.version() == known.version) {
                leading.duties().onKeepAlive(from, m);
            }
        } else if (message instanceof LeaderKeepAliveAck m) {
            following.onKeepAliveAck(from, m);
        } else if (message instanceof LeaderQuery) {
            send(from, new LeaderResponse(votes.healthyLeader(ttl), known.version));
        } else if (message instanceof LeaderResponse m) {
            seeking.onLeaderResponse(from, m);
        } else if (message instanceof JoinClusterRequest m) {
            if (leadingOrElect()) {
                leading.duties().onJoin(from, m.card());
            } else {
                send(from, new JoinClusterResponse(false, known.version, votes.healthyLeader(ttl), "not the leader"));
            }
        } else if (message instanceof JoinClusterResponse m) {
            seeking.onJoinResponse(from, m);
        } else if (message instanceof MemberStatusUpdate m) {
            following.onMemberStatusUpdate(from, m, leading != null);
        } else if (message instanceof ClusterAlignment m) {
            following.onClusterAlignment(from, m);
        } else if (message instanceof LeaveCluster m) {
            if (leading != null && m.version() == leading.duties().version()) {
                leading.duties().onLeave(from);
            }
        } else if (message instanceof ReJoinCluster m) {
            following.onReJoin(from, m);
        } else if (message instanceof SeedKeepAlive m) {
            seedConflicts.onSeedKeepAlive(from, m, this::onLeaderRelieve);
        } else if (message instanceof SeedKeepAliveAck) {
            // The seed resolves a conflict itself (LeaderRelieve); nothing to do here.
            return;
        } else if (message instanceof LeaderRelieve m) {
            onLeaderRelieve(m);
        } else if (message instanceof LeaderResign m) {
            following.onLeaderResign(from, m);
        } else if (message instanceof ProbeRequest m) {
            if (following.follows(from, m.version())) {
                probeHelper.onRequest(from, m);
            }
        } else if (message instanceof Probe m) {
            send(from, new ProbeAck(m.probeId()));
        } else if (message instanceof ProbeAck m) {
            if (!probeHelper.onAck(from, m) && leading != null) {
                leading.duties().onProbeResult(from, m.probeId(), true);
            }
        } else if (message instanceof ProbeReport m) {
            if (leading != null && m.version() == leading.duties().version()) {
                leading.duties().onProbeResult(m.target(), m.probeId(), m.reachable());
            }
        } else if (message instanceof LeaderStatusQuery m) {
            votes.onStatusQuery(from, m);
        } else if (message instanceof LeaderStatusQueryResponse m) {
            if (elections.current() != null) {
                elections.current().onStatusResponse(from, m);
            }
        } else if (message instanceof PreProposal m) {
            votes.onPreProposal(from, m);
        } else if (message instanceof PreVote m) {
            if (elections.current() != null) {
                elections.current().onPreVote(from, m);
            }
        } else if (message instanceof FormalProposal m) {
            votes.onFormalProposal(from, m);
        } else if (message instanceof FormalVote m) {
            if (elections.current() != null) {
                elections.current().onFormalVote(from, m);
            }
        } else if (message instanceof NewLeader m) {
            elections.onNewLeader(from, m, following);
        } else if (message instanceof RecoveryQuery m) {
            votes.onRecoveryQuery(from, m);
        } else if (message instanceof RecoveryResponse m) {
            if (recovery != null) {
                recovery.onResponse(from, m);
            }
        } else if (message instanceof BarrierUpdate m) {
            votes.onBarrierUpdate(from, m);
        } else if (message instanceof BarrierAck m) {
            if (recovery != null) {
                recovery.onAck(from, m.queryId());
            }
        } else {
            throw new IllegalStateException("no handler for quorum message type " + message.getClass().getName());
        }
    }

    private void onLeaderRelieve(LeaderRelieve relieve) {
        if (leadingOrElect()) {
            leading.onRelieve(relieve);
        }
    }

    /** Gives up leadership if held; this node then holds off its own elections for ttlTimeout. */
    void stepDown(boolean fromListener, CompletableFuture<Void> done) {
        if (leadingOrElect()) {
            elections.holdOff(clock.nanoTime() + ttl);
            leading.resign(false, fromListener, transport::send).whenComplete((ignored, error) -> done.complete(null));
            seek(false);
        } else {
            done.complete(null);
        }
        publish();
    }

    /**
     * Leaves the cluster: a leader resigns first (naming a successor), a follower tells its leader. {@code closed}
     * completes once the farewell is out and every save asked for has been written.
     */
    void close(boolean fromListener, CompletableFuture<Void> closed) {
        if (phase == Phase.CLOSED) {
            closed.complete(null);
            return;
        }
        CompletableFuture<Void> handedOver = CompletableFuture.completedFuture(null);
        if (leadingOrElect()) {
            handedOver = leading.resign(true, fromListener, transport::send);
        } else if (phase == Phase.FOLLOWING && known.current != null) {
            send(known.current, new LeaveCluster(known.version));
        }
        phase = Phase.CLOSED;
        epoch++;
        tickTimer.cancel();
        phaseTimer.cancel();
        elections.cancel();
        known.current = null;
        notices.closed(group);
        handedOver.whenComplete((ignored, error) -> effects.close(() -> closed.complete(null)));
    }

    /** Replaces this node's card; a follower tells its leader (a join request from a member updates its card). */
    void updateCard(MemberCard newCard) {
        card = newCard;
        if (leading != null) {
            leading.duties().updateSelf(newCard);
        } else if (phase == Phase.FOLLOWING && known.current != null) {
            send(known.current, new JoinClusterRequest(newCard, known.version));
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
            case FOLLOWING -> following.tick(now);
            case LEADER_ELECT, LEADING -> leading.duties().tick();
            case SEEKING, JOINING -> {
                if (now - known.lastSeen >= config.giveUpAfter().toNanos()) {
                    seeking.giveUp();
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
        recovery = new Recovery(this, new Recovery.Host() {
            @Override
            public boolean recovering() {
                return phase == Phase.RECOVERING;
            }

            @Override
            public void recovered(long barrier) {
                finishRecovery(barrier);
            }
        }, random.nextLong());
        enterPhase(Phase.RECOVERING);
        recovery.start();
    }

    private void finishRecovery(long barrier) {
        if (phase != Phase.RECOVERING) {
            return;
        }
        acceptor.finishRecovery(barrier);
        log.debug("{} recovered: votes only above version {}", self, barrier);
        seek(true);
        recovery = null;
    }

    // ================================================================ transitions

    @Override
    public void enterPhase(Phase next) {
        if (phase == Phase.CLOSED) {
            return;
        }
        phase = next;
        epoch++;
        phaseTimer.cancel();
        if (next != Phase.FOLLOWING) {
            known.recognising = false;
        }
        if (next != Phase.LEADING && next != Phase.LEADER_ELECT) {
            // The term ended (resigned, relieved, lost, or never acknowledged): its table and deadline go with it.
            leading = null;
        }
        publish();
    }

    @Override
    public void phaseTimer(Duration delay, Runnable action) {
        phaseTimer.cancel();
        long e = epoch;
        phaseTimer = scheduler.schedule(delay, () -> {
            if (epoch == e) {
                action.run();
            }
        });
    }

    @Override
    public void setCurrent(PeerAddress who) {
        if (Objects.equals(known.current, who)) {
            return;
        }
        known.current = who;
        if (who != null) {
            known.echo = who.equals(self) ? known.echo : NO_STAMP;
            known.recognising = false;
        }
        notices.leaderChanged(who == null ? null : new LeaderInfo(who.format(), known.version));
    }

    @Override
    public void openRound() {
        notices.roundStarted();
    }

    @Override
    public void closeRound(boolean leading) {
        notices.roundCompleted(leading);
    }

    @Override
    public void seek(boolean now) {
        seeking.seek(now);
    }

    @Override
    public void join(PeerAddress target, long version) {
        seeking.join(target, version);
    }

    @Override
    public void becomeFollower(boolean joined) {
        following.become(joined);
    }

    @Override
    public void becomeLeaderElect() {
        acceptor.recordLeading(known.version);
        votes.clearCandidacy();
        enterPhase(Phase.LEADER_ELECT);
        known.wasMember = true;
        setCurrent(self);
        leading = new LeaderTerm(this, known, this, notices, group, known.version);
        leading.begin(elections.takeBackers(known.version), elections.backedSince());
    }

    @Override
    public long stopLeading(LossReason reason) {
        return leading.stop(reason);
    }

    @Override
    public void startElection(long resignedTerm) {
        elections.start(resignedTerm);
    }

    @Override
    public void cancelElection() {
        elections.cancel();
    }

    @Override
    public void learnLeader(PeerAddress who, long version) {
        elections.learnLeader(who, version);
    }

    @Override
    public boolean adoptLeader(PeerAddress who, long version) {
        return elections.adoptLeader(who, version);
    }

    @Override
    public void reportError(String message, Throwable cause) {
        log.warn("[{} {}] {}", group, self, message);
        notices.error(message, cause);
    }

    @Override
    public void publish() {
        if (phase == Phase.CLOSED) {
            return;
        }
        notices.snapshot(switch (phase) {
            case LEADING -> NodeState.LEADER;
            case LEADER_ELECT -> NodeState.CANDIDATE;
            default -> elections.running() ? NodeState.CANDIDATE : NodeState.FOLLOWER;
        }, problem());
    }

    private String problem() {
        long now = clock.nanoTime();
        return switch (phase) {
            case RECOVERING -> "recovering after a start without saved state: " + recovery.describe();
            case FOLLOWING -> now - known.contact >= heartbeatTimeout
                    ? "leader " + known.current + " not heard for " + Duration.ofNanos(now - known.contact).toMillis()
                            + " ms"
                    : null;
            case SEEKING, JOINING -> now - known.lastSeen >= ttl
                    ? "no leader for " + Duration.ofNanos(now - known.lastSeen).toMillis() + " ms (a majority of "
                            + config.majority() + " of " + config.clusterSize() + " nodes must take part)"
                    : null;
            default -> null;
        };
    }

    @Override
    public String toString() {
        return "QuorumNode{" + self + ", " + phase + ", leader=" + known.leader + "@" + known.version + ", " + acceptor
                + "}";
    }
}
