package dev.baton.peer.quorum;

import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.ElectionListener;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberStatus;
import dev.baton.core.Membership;
import dev.baton.core.NodeState;
import dev.baton.core.Registration;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.internal.EventDispatcher;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election and membership with no server (seed 003's quorum membership, made safe): the {@link Election} of
 * the {@code peer} backend. Most users build one with {@link Quorum}.
 *
 * <p>The group is the cluster's name. A node's id is its peer address ({@code host:port}). The term of a leadership
 * is the cluster version the election decided, which is also the fencing token: no two nodes ever lead the same
 * version, and versions only grow. A leadership is valid until the newest time a majority acknowledged it plus
 * heartbeatTimeout, on the monotonic clock; a leader that loses its majority stops by then
 * ({@code LeadershipLost}, reason {@code EXPIRED_LOCALLY}), before the majority can elect another leader.
 *
 * <p>Events are the lease backends' ({@code ElectionStarted}/{@code Completed}, {@code LeadershipAcquired}/{@code
 * Lost}, {@code LeaderChanged}, {@code MemberJoined}/{@code StateChanged}/{@code Removed} on the leader only, {@code
 * ElectionError}), delivered in order as {@link ElectionListener} describes. Reasons for a loss: {@code RELEASED}
 * ({@link #stepDown()}, {@link #close()}), {@code EXPIRED_LOCALLY} (check-quorum), {@code LEASE_TAKEN} (a newer
 * leader, or a seed's {@code LeaderRelieve}).
 *
 * <p>The state machine ({@code QuorumNode}) runs on the given {@link Scheduler}; this class posts every call there and
 * reads only what the machine publishes.
 */
public final class QuorumElection implements Election {

    private static final Logger log = LoggerFactory.getLogger(QuorumElection.class);

    private final String group;
    private final QuorumConfig config;
    private final Scheduler scheduler;
    private final EventDispatcher events;
    private final QuorumNode node;
    private final QuorumMembership membership;
    private final Runnable afterClose;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    /**
     * Creates an election over {@code transport}, which it takes the message handler of; most users build one with
     * {@link Quorum} instead.
     *
     * @param card          what this node tells the cluster about itself
     * @param durable       where the node keeps its votes across crashes
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads and transport there)
     */
    public QuorumElection(String group, MemberCard card, QuorumConfig config, Transport<QuorumMessage> transport,
            DurableState durable, Clock clock, Scheduler scheduler, Random random, Executor eventExecutor,
            Runnable afterClose) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        this.group = group;
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.events = new EventDispatcher(Objects.requireNonNull(eventExecutor, "eventExecutor"));
        this.node = new QuorumNode(group, transport.local(), Objects.requireNonNull(card, "card"), config, transport,
                Objects.requireNonNull(durable, "durable"), Objects.requireNonNull(clock, "clock"), scheduler,
                Objects.requireNonNull(random, "random"), events);
        this.membership = new QuorumMembership(node, scheduler);
        this.afterClose = afterClose;
        transport.setHandler((from, message) -> scheduler.execute(() -> node.onMessage(from, message)));
    }

    /** This node's peer address, which is also its node id. */
    public PeerAddress address() {
        return node.self();
    }

    public QuorumConfig config() {
        return config;
    }

    @Override
    public String group() {
        return group;
    }

    @Override
    public String nodeId() {
        return node.self().format();
    }

    @Override
    public void start() {
        if (started.compareAndSet(false, true)) {
            scheduler.execute(node::start);
        }
    }

    /** Blocks until this node first follows a leader or leads; a cluster forms only once a majority takes part. */
    @Override
    public boolean awaitElected(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            node.output().firstRound().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("election of group " + group + " was closed", e.getCause());
        }
        return isLeader();
    }

    @Override
    public CompletableFuture<Boolean> whenElected() {
        return node.output().firstRound().copy();
    }

    @Override
    public boolean isLeader() {
        Leadership leadership = node.output().leadership();
        return leadership != null && leadership.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(node.output().leadership()).filter(Leadership::isValid);
    }

    /** The leader this node follows (or itself), with its version; empty while it has none. */
    @Override
    public Optional<LeaderInfo> leader() {
        return Optional.ofNullable(node.output().leader());
    }

    @Override
    public NodeState state() {
        return node.output().state();
    }

    /** Why this node has no working leader right now (recovering, no majority, leader silent), if so. */
    @Override
    public Optional<String> problem() {
        return Optional.ofNullable(node.output().problem());
    }

    /** This node's state, leader and problem, and every member in its seed 003 state (joining ... leaving). */
    @Override
    public CompletableFuture<ClusterStatus> status() {
        CompletableFuture<ClusterStatus> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            PeerAddress leader = node.currentLeader();
            List<MemberStatus> members = new ArrayList<>();
            for (MemberEntry entry : node.members()) {
                members.add(new MemberStatus(QuorumMembership.nodeInfo(entry, leader), entry.state()));
            }
            result.complete(new ClusterStatus(group, nodeId(), node.output().state(), leader(), members, problem()));
        });
        return result;
    }

    /**
     * Gives up leadership: the node stops leading, its listeners are told, then it names the member that acknowledged
     * it last as successor, which is elected at once. This node does not run an election of its own for ttlTimeout.
     */
    @Override
    public CompletableFuture<Void> stepDown() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean fromListener = events.deliveringOnThisThread();
        scheduler.execute(() -> node.stepDown(fromListener, done));
        return done;
    }

    @Override
    public Registration addListener(ElectionListener listener) {
        return events.add(listener);
    }

    @Override
    public Registration addListener(ElectionListener listener, Executor executor) {
        return events.add(listener, executor);
    }

    @Override
    public Membership membership() {
        return membership;
    }

    /**
     * Not available: a fenced register needs a shared store that refuses writes from older terms, and the quorum
     * backend has none. Fence writes with {@link Leadership#term()} in the resource itself (for a resource in one
     * process, {@code dev.baton.core.fencing.Fence}).
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public FencedRegister fencedRegister(String name) {
        throw new UnsupportedOperationException("the quorum (peer) backend has no shared store for fenced registers:"
                + " pass Leadership.term() with each write and let the resource refuse older terms"
                + " (dev.baton.core.fencing.Fence for a resource in one process)");
    }

    /**
     * Leaves the cluster: a leader stops leading, its listeners are told, and it resigns naming a successor (so the
     * cluster need not wait for timeouts); a follower tells its leader it leaves. Completes once that is sent.
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        if (closeRequested.compareAndSet(false, true)) {
            boolean fromListener = events.deliveringOnThisThread();
            CompletableFuture<Void> handedOver = new CompletableFuture<>();
            handedOver.whenComplete((ignored, error) -> {
                closed.complete(null);
                if (afterClose != null) {
                    afterClose.run();
                }
            });
            scheduler.execute(() -> node.close(fromListener, handedOver));
        }
        return closed;
    }

    /** {@link #closeAsync()}, waiting up to about heartbeatTimeout for the hand-over to go out. */
    @Override
    public void close() {
        closeAsync();
        try {
            closed.get(config.heartbeatTimeout().toNanos() + Duration.ofSeconds(1).toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Closing the quorum election of group {} did not finish cleanly: {}", group, e.toString());
        }
    }

    /** The state machine, for tests in this package. */
    QuorumNode node() {
        return node;
    }

    @Override
    public String toString() {
        return "QuorumElection{group=" + group + ", node=" + nodeId() + "}";
    }
}
