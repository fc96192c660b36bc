package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionMetrics;
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
import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.LeaveCluster;
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
 * {@link LeaderDuties}), {@code STOPPED} (a save failed: see {@link #stopOnWriteFailure}), {@code CLOSED}. In every
 * phase the node votes through its {@link VoteGate} and runs or learns elections through {@link Elections}; what it
 * knows of its leader is one {@link KnownLeader} they share.
 *
 * <p>Validation (seed 003's sending and receiving principles): only a node leading a version acknowledges keep-alives
 * or changes member states for it; a message that instructs a node (rejoin, relieve, resign, member removed) is acted
 * on only if the node's own view still matches the sender's (same leader, same version).
 */
final class QuorumNode implements NodeContext, Transitions, QuorumInbox.Node, Recovery.Host {

    private static final Logger log = LoggerFactory.getLogger(QuorumNode.class);

    enum Phase { CREATED, RECOVERING, SEEKING, JOINING, FOLLOWING, LEADER_ELECT, LEADING, STOPPED, CLOSED }

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
    private final QuorumInbox inbox;
    private LeaderTerm leading;
    private Recovery recovery;
    private final Map<PeerAddress, Long> peers = new TreeMap<>();
    private Cancellable tickTimer = Cancellable.NONE;
    private Cancellable phaseTimer = Cancellable.NONE;
    private String stoppedBecause;

    QuorumNode(String group, PeerAddress self, MemberCard card, QuorumConfig config,
            Transport<QuorumMessage> transport, DurableState durable, Effects.Factory driver, Clock clock,
            Scheduler scheduler, Random random, EventDispatcher events, ElectionMetrics metrics) {
        this.group = group;
        this.self = self;
        this.card = card;
        this.config = config;
        this.transport = transport;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.output = new NodeOutput(events, clock, metrics);
        this.effects = driver.create(durable, transport, scheduler, group + "-" + self, this::stopOnWriteFailure);
        this.notices = new Notices(output, effects);
        this.tickFailures = new TickFailures(log, clock, output, "[" + group + " " + self + "]");
        this.acceptor = new Acceptor(durable, effects);
        this.ttl = config.ttlTimeout().toNanos();
        this.heartbeatTimeout = config.heartbeatTimeout().toNanos();
        this.votes = new VoteGate(this, known, this);
        this.elections = new Elections(this, known, votes, this);
        this.seeking = new Seeking(this, known, this, elections);
        this.following = new Following(this, known, this, elections, seeking);
        this.inbox = new QuorumInbox(this, this, known, votes, elections, seeking, following,
                new SeedConflicts(this, known, this));
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
    public void afterDurable(Runnable step) {
        effects.afterDurable(step);
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

    @Override
    public boolean recovering() {
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

    @Override
    public boolean leadingOrElect() {
        return phase == Phase.LEADING || phase == Phase.LEADER_ELECT;
    }

    @Override
    public LeaderTerm leadingTerm() {
        return leading;
    }

    @Override
    public Recovery recoveryRun() {
        return recovery;
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
        if (phase == Phase.CREATED || phase == Phase.STOPPED || phase == Phase.CLOSED || from.equals(self)) {
            return;
        }
        peers.put(from, clock.nanoTime());
        try {
            inbox.dispatch(from, message);
        } catch (UncheckedIOException e) {
            stopOnWriteFailure(e);
        }
        publish();
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
        if (phase == Phase.CLOSED || phase == Phase.STOPPED) {
            return;
        }
        try {
            runTick();
        } catch (RuntimeException e) {
            tickFailures.report("the heartbeat tick", e);
        } finally {
            // Whatever this tick did, the next one comes: one exception must not end keep-alives and check-quorum.
            if (phase != Phase.CLOSED && phase != Phase.STOPPED) {
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
        recovery = new Recovery(this, this, random.nextLong());
        enterPhase(Phase.RECOVERING);
        recovery.start();
    }

    @Override
    public void recovered(long barrier) {
        if (phase != Phase.RECOVERING) {
            return;
        }
        acceptor.finishRecovery(barrier);
        log.debug("{} recovered: votes only above version {}", self, barrier);
        seek(true);
        recovery = null;
    }

    // ================================================================ a failed save

    /**
     * A save failed, so the disk may hold less than this node acted on, and after a failed fsync nothing tells what
     * reached it (retrying one may report success for data the kernel has dropped). The sends and the own votes that
     * depended on the save were dropped; the node now stops taking part, as a database stops on a failed fsync: it
     * gives up a leadership it holds, proposes, votes and answers no more, and says why in {@code problem()}, until
     * it is closed and started again on what its disk holds (a restart is safe: nothing that depended on the lost
     * save left the node). Carrying on would let later messages rest on state the disk may not have.
     */
    private void stopOnWriteFailure(RuntimeException cause) {
        if (phase == Phase.STOPPED || phase == Phase.CLOSED) {
            return;
        }
        Throwable root = cause.getCause() == null ? cause : cause.getCause();
        // An exception wrapping another without a message of its own repeats the other's: say it once.
        String reason = root == cause || root.toString().equals(cause.getMessage()) ? String.valueOf(root.getMessage())
                : cause.getMessage() + ": " + root.getMessage();
        reportError("cannot save the election state (" + reason + "); what depended on it was not sent, and this"
                + " node takes no further part in elections until it is restarted", cause);
        if (leadingOrElect()) {
            leading.stop(LossReason.EXPIRED_LOCALLY);
        }
        elections.cancel();
        tickTimer.cancel();
        setCurrent(null);
        stoppedBecause = reason;
        enterPhase(Phase.STOPPED);
    }

    // ================================================================ transitions

    @Override
    public void enterPhase(Phase next) {
        if (phase == Phase.CLOSED || phase == Phase.STOPPED) {
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
            case STOPPED -> NodeState.STOPPED;
            default -> elections.running() ? NodeState.CANDIDATE : NodeState.FOLLOWER;
        }, problem());
    }

    private String problem() {
        long now = clock.nanoTime();
        return switch (phase) {
            case RECOVERING -> "recovering after a start without saved state: " + recovery.describe();
            case STOPPED -> "stopped: cannot save the election state (" + stoppedBecause + "); restart this node";
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
