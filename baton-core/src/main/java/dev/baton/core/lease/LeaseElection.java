package dev.baton.core.lease;

import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionListener;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import dev.baton.core.Registration;
import dev.baton.core.Registry;
import dev.baton.core.Role;
import dev.baton.core.StoreContact;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.spi.FailureLog;
import dev.baton.core.spi.ShutdownRelease;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.SessionStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election over any {@link CoordinationStore} lease (DESIGN §3): the engine behind the Redis and PostgreSQL
 * backends.
 *
 * <p>This class is the facade: the queries, listeners and futures of {@link StoreElection}. The decisions are made by
 * a step function ({@code LeaseMachine}: an input and the time in, the actions and the next wake-up out), which a
 * driver ({@code LeaseDriver}) feeds on the {@link Scheduler}: every input (a store reply, a timer, a push notice, a
 * user command) runs as a scheduler task, so no state needs locks, and under a fake clock and a deterministic
 * scheduler every run is reproducible. It starts no thread and reads time only through {@link Clock}.
 * Start and close, including a close asked for from a listener, are the life cycle's ({@code LeaseLifecycle}).
 *
 * <p>Safety rules:
 * <ol>
 *   <li><b>Local deadline.</b> A lease obtained by a request sent at {@code t} is trusted until
 *       {@code t + ttl * (1 - maxClockDrift) - safetyMargin} on the monotonic clock. If no renewal succeeded by
 *       then, leadership is lost ({@link dev.baton.core.ElectionEvent.LossReason#EXPIRED_LOCALLY}) even if every
 *       store call hangs; every renewal's timeout ends before the deadline.</li>
 *   <li><b>Fencing.</b> Each leadership carries the store-assigned term; {@code LeadershipLost} is emitted exactly
 *       once per term, and {@code LeadershipAcquired} only for a term whose deadline has not passed.</li>
 *   <li><b>Stop acting first.</b> On a graceful release, the node stops counting itself leader and waits until its
 *       listeners have returned from {@code LeadershipLost} (bounded by the deadline) before the lease is
 *       released.</li>
 *   <li><b>Push, then poll.</b> Followers contend on a release notice at once, wake at the lease expiry they read
 *       (plus {@code expiryJitter}), and poll every {@code checkInterval} (plus {@code electionJitter}) only as a
 *       fallback for lost notices.</li>
 * </ol>
 */
public final class LeaseElection implements StoreElection {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final CoordinationStore store;
    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final Scheduler scheduler;
    private final EventDispatcher events;
    private final StoreLink link;
    private final LeaseMembership membership;
    private final LeaseOutput output;
    private final LeaseDriver driver;
    private final LeaseLifecycle lifecycle;
    private final ElectionMetrics metrics;
    /** The store session this election's lease is bound to, or null for a lease with a TTL of its own. */
    private final SessionKeepers.Binding session;
    /** This election as the session keeper sees it; null without a session. */
    private final SessionKeeper.Holder holder;
    private final AtomicBoolean attached = new AtomicBoolean();

    /**
     * Creates an election; most users build one with {@code Baton.election(store)} instead.
     *
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads there)
     */
    public LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, Runnable afterClose) {
        this(store, group, self, config, clock, scheduler, random, eventExecutor, ElectionMetrics.NONE, afterClose);
    }

    /**
     * Creates an election that reports its store calls and renewals to {@code metrics}.
     *
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads there)
     */
    public LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, ElectionMetrics metrics,
            Runnable afterClose) {
        this(store, group, self, config, clock, scheduler, random, eventExecutor, metrics, afterClose,
                FailureLog.Lines.of(log), false);
    }

    /**
     * Creates an election whose lease is bound to the process's session on the store ({@code sessionBound}, if the
     * store offers sessions): every election of the same node on the same store object, with the same timings, shares
     * one session, kept alive once per renew interval whatever the number of groups; see
     * {@link dev.baton.core.store.SessionStore}. Otherwise the lease has a TTL of its own, renewed per group.
     *
     * @param eventExecutor the default executor for listeners
     * @param afterClose    run once the election has closed (the driver releases its threads there)
     * @throws IllegalStateException if bound to a session and this node already has an open election of the group
     *                               on this store
     */
    public LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, ElectionMetrics metrics,
            Runnable afterClose, boolean sessionBound) {
        this(store, group, self, config, clock, scheduler, random, eventExecutor, metrics, afterClose,
                FailureLog.Lines.of(log), sessionBound);
    }

    /** As above, with the store failures' log lines going to {@code failureLines} (tests count them). */
    LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, ElectionMetrics metrics,
            Runnable afterClose, FailureLog.Lines failureLines) {
        this(store, group, self, config, clock, scheduler, random, eventExecutor, metrics, afterClose, failureLines,
                false);
    }

    private LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, ElectionMetrics metrics,
            Runnable afterClose, FailureLog.Lines failureLines, boolean sessionBound) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        this.store = Objects.requireNonNull(store, "store");
        this.group = group;
        this.nodeId = self.id();
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(random, "random");
        this.events = new EventDispatcher(eventExecutor);
        // Its callbacks run inside the renewal and heartbeat loops: one that throws must not end them.
        ElectionMetrics guarded = GuardedMetrics.guard(Objects.requireNonNull(metrics, "metrics"));
        this.metrics = guarded;
        this.link = new StoreLink(clock, config.storeContactLimit(), new FailureLog("[" + group + "] ", "store", clock,
                FailureLog.DEFAULT_INTERVAL, failureLines));
        TimedCalls calls = new TimedCalls(scheduler, clock, guarded, link);
        this.output = new LeaseOutput(group, events, link, clock);
        SessionStore sessions = sessionBound ? store.sessions().orElse(null) : null;
        this.session = sessions == null ? null
                : SessionKeepers.bind(store, sessions, self.withRole(Role.FOLLOWER), group, config, clock, scheduler);
        SessionKeeper.Holder holder = session == null ? null : new SessionHolder();
        this.membership = sessions == null
                ? new LeaseMembership(store.registry(), group, self.withRole(Role.FOLLOWER), config, scheduler, clock,
                        guarded, link, events::emit, output::reportError)
                : new LeaseMembership(store.registry(), sessions, watched -> session.keeper().watchMembers(holder,
                        watched), group, self.withRole(Role.FOLLOWER), config, scheduler, clock, guarded, link,
                        events::emit, output::reportError);
        this.driver = new LeaseDriver(group, nodeId, new LeaseMachine(group, nodeId, config, random, sessions != null),
                clock, scheduler, guarded, new LeaseCalls(store.leases(), sessions, group, nodeId, config, calls),
                output, membership, session == null ? LeaseDriver.SessionWaits.NONE
                        : (waitedFor, remaining) -> session.keeper().awaitEnd(holder, waitedFor, remaining));
        Runnable unbind = session == null ? afterClose : () -> {
            session.keeper().detach(holder);
            session.unbind();
            if (afterClose != null) {
                afterClose.run();
            }
        };
        this.lifecycle = new LeaseLifecycle(group, config, scheduler, events, driver, unbind);
        this.holder = holder;
    }

    /** The session keeper's calls into this election, each run on its scheduler. */
    private final class SessionHolder implements SessionKeeper.Holder {

        @Override
        public void sessionOpened(SessionKeeper.Session opened) {
            driver.handle(new LeaseInput.SessionOpened(opened));
        }

        @Override
        public void sessionLost(SessionKeeper.Session lost, ElectionEvent.LossReason reason) {
            driver.handle(new LeaseInput.SessionLost(lost, reason));
        }

        @Override
        public void membersEnded(Set<String> sessions) {
            membership.onMembersEnded();
        }

        @Override
        public void holderEnded(String ended) {
            driver.handle(new LeaseInput.HolderSessionEnded(ended));
        }

        @Override
        public void sessionTrouble(String what, Throwable cause) {
            output.reportSessionProblem(what, cause);
        }

        @Override
        public void sessionRecovered() {
            output.clearProblem();
        }

        @Override
        public void storeReplied() {
            link.heardFromStore();
        }

        @Override
        public void keptAlive(SessionKeeper.Session kept, long latencyNanos, long marginNanos, long deadlineNanos) {
            driver.leadsIn(kept).ifPresent(term -> {
                metrics.storeCall("renew", latencyNanos, true);
                metrics.leaseRenewed(latencyNanos, marginNanos);
                metrics.validUntil(term, deadlineNanos);
            });
        }
    }

    /** Whether this election's lease is bound to the process's store session (see the constructor). */
    public boolean sessionBound() {
        return session != null;
    }

    // ------------------------------------------------------------------ queries (any thread)

    @Override
    public String group() {
        return group;
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    @Override
    public boolean awaitElected(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            output.firstRound().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("election of group " + group + " was closed", e.getCause());
        }
        return isLeader();
    }

    @Override
    public CompletableFuture<Boolean> whenElected() {
        return output.firstRound().copy();
    }

    @Override
    public boolean isLeader() {
        Leadership leadership = output.leadership();
        return leadership != null && leadership.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(output.leadership()).filter(Leadership::isValid);
    }

    @Override
    public Optional<LeaderInfo> leader() {
        return Optional.ofNullable(output.leader());
    }

    @Override
    public NodeState state() {
        return output.state();
    }

    @Override
    public Optional<String> problem() {
        return Optional.ofNullable(output.problem());
    }

    /**
     * The silence is measured from the last reply to any store call this election or its membership made (an acquire
     * attempt, a renewal, a heartbeat, a member listing), or from {@link #start()} before the first one.
     */
    @Override
    public Optional<StoreContact> storeContact() {
        return Optional.of(link.contact());
    }

    @Override
    public CompletableFuture<ClusterStatus> status() {
        NodeState state = output.state();
        Optional<LeaderInfo> leader = leader();
        Optional<String> trouble = problem();
        return membership.members().thenApply(members -> new ClusterStatus(group, nodeId, state, leader,
                LeaseMembership.health(members, membership.heartbeatInterval()), trouble,
                Optional.of(link.contact())));
    }

    @Override
    public Registry membership() {
        return membership;
    }

    @Override
    public FencedRegister fencedRegister(String name) {
        return new FencedRegister(store.registers(), group, name);
    }

    // ------------------------------------------------------------------ listeners

    @Override
    public Registration addListener(ElectionListener listener) {
        return events.add(listener);
    }

    @Override
    public Registration addListener(ElectionListener listener, Executor executor) {
        return events.add(listener, executor);
    }

    // ------------------------------------------------------------------ commands and life cycle

    /**
     * Closes this election from a JVM shutdown hook (SIGTERM, Ctrl-C, {@code System.exit}) while it runs: the hook
     * is registered by {@link #start()} and removed once the election has closed. {@code Baton.election(store)} turns
     * it on unless told {@code releaseOnShutdown(false)}. Call before start.
     */
    public void releaseOnShutdown() {
        lifecycle.releaseOnShutdown(ShutdownRelease.closing(this));
    }

    /** Starts contending; bound to a session, the process's session opens now if it is not open yet. */
    @Override
    public void start() {
        if (session != null && attached.compareAndSet(false, true)) {
            session.keeper().attach(holder, scheduler::execute);
        }
        lifecycle.start();
    }

    @Override
    public CompletableFuture<Void> stepDown() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean fromListener = events.deliveringOnThisThread();
        driver.submit(new LeaseInput.StepDown(fromListener, done));
        return done;
    }

    /**
     * Closes the election. A leader stops acting, its listeners are told, and its lease is released; this process's
     * registry entry is removed. {@link #close()} blocks until that is done, at most about the lease TTL, except when
     * called from a listener or on the election's own thread (see {@link Election#close()}).
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        return lifecycle.closeAsync();
    }

    @Override
    public void close() {
        lifecycle.close();
    }

    @Override
    public String toString() {
        return "LeaseElection{group=" + group + ", node=" + nodeId + ", store=" + store.describe() + "}";
    }
}
