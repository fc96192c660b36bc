package dev.baton.core.lease;

import dev.baton.core.ClusterStatus;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionListener;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.Registry;
import dev.baton.core.StoreElection;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import dev.baton.core.Registration;
import dev.baton.core.Role;
import dev.baton.core.StoreContact;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.internal.EventDispatcher;
import dev.baton.core.internal.FailureLog;
import dev.baton.core.internal.LeaseDeadline;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.core.time.Scheduler.Cancellable;
import java.time.Duration;
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
 * Leader election over any {@link CoordinationStore} lease (DESIGN §3): the engine behind the Redis and PostgreSQL
 * backends.
 *
 * <p>It is a state machine driven by its {@link Scheduler}: every input (a store reply, a timer, a push notice, a
 * user command) runs as a scheduler task, so its state needs no locks, and under a fake clock and a deterministic
 * scheduler every run is reproducible. It starts no thread and reads time only through {@link Clock}.
 *
 * <p>Safety rules:
 * <ol>
 *   <li><b>Local deadline.</b> A lease obtained by a request sent at {@code t} is trusted until
 *       {@code t + ttl * (1 - maxClockDrift) - safetyMargin} on the monotonic clock. If no renewal succeeded by
 *       then, leadership is lost ({@link LossReason#EXPIRED_LOCALLY}) even if every store call hangs; every renewal's
 *       timeout ends before the deadline.</li>
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

    private enum State { CREATED, FOLLOWING, LEADING, CLOSED }

    private final CoordinationStore store;
    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final EventDispatcher events;
    private final TimedCalls calls;
    private final StoreLink link;
    private final ElectionMetrics metrics;
    private final LeaseMembership membership;
    private final Runnable afterClose;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final CompletableFuture<Boolean> firstRound = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    // Read from any thread.
    private volatile Leadership published;
    private volatile LeaderInfo publishedLeader;
    private volatile NodeState publishedState = NodeState.FOLLOWER;
    private volatile String problem;

    // Confined to the scheduler.
    private State state = State.CREATED;
    private Leadership current;
    /** The only handle that moves {@link #current}'s deadline: listeners get the read-only leadership. */
    private LeaseDeadline currentDeadline;
    private LeaderInfo known;
    /** The highest term this node has seen granted, denied or announced; never goes back, so late notices are ignored. */
    private long highestTermSeen = Long.MIN_VALUE;
    private long generation;
    private boolean acquireInFlight;
    private boolean recheckAfterFlight;
    private boolean electionOpen;
    private int acquireFailures;
    private long holdOffUntil;
    private boolean holdingOff;
    private Cancellable wakeTimer = Cancellable.NONE;
    private Cancellable renewTimer = Cancellable.NONE;
    private Cancellable deadlineTimer = Cancellable.NONE;
    private Subscription leaseNotices;

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
                FailureLog.Lines.of(log));
    }

    /** As above, with the store failures' log lines going to {@code failureLines} (tests count them). */
    LeaseElection(CoordinationStore store, String group, NodeInfo self, ElectionConfig config, Clock clock,
            Scheduler scheduler, Random random, Executor eventExecutor, ElectionMetrics metrics,
            Runnable afterClose, FailureLog.Lines failureLines) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        this.store = Objects.requireNonNull(store, "store");
        this.group = group;
        this.nodeId = self.id();
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.random = Objects.requireNonNull(random, "random");
        this.events = new EventDispatcher(eventExecutor);
        // Its callbacks run inside the renewal and heartbeat loops: one that throws must not end them.
        this.metrics = GuardedMetrics.guard(Objects.requireNonNull(metrics, "metrics"));
        this.link = new StoreLink(clock, config.storeContactLimit(), new FailureLog("[" + group + "] ", "store", clock,
                FailureLog.DEFAULT_INTERVAL, failureLines));
        this.calls = new TimedCalls(scheduler, clock, this.metrics, link);
        this.afterClose = afterClose;
        this.membership = new LeaseMembership(store.registry(), group, self.withRole(Role.FOLLOWER), config,
                scheduler, clock,
                this.metrics, link, events::emit, this::reportError);
    }

    // ------------------------------------------------------------------ public API (any thread)

    @Override
    public String group() {
        return group;
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    @Override
    public void start() {
        if (started.compareAndSet(false, true)) {
            scheduler.execute(this::onStart);
        }
    }

    @Override
    public boolean awaitElected(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            firstRound.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("election of group " + group + " was closed", e.getCause());
        }
        return isLeader();
    }

    @Override
    public CompletableFuture<Boolean> whenElected() {
        return firstRound.copy();
    }

    @Override
    public boolean isLeader() {
        Leadership leadership = published;
        return leadership != null && leadership.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(published).filter(Leadership::isValid);
    }

    @Override
    public Optional<LeaderInfo> leader() {
        return Optional.ofNullable(publishedLeader);
    }

    @Override
    public NodeState state() {
        return publishedState;
    }

    @Override
    public Optional<String> problem() {
        return Optional.ofNullable(problem);
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
        NodeState state = publishedState;
        Optional<LeaderInfo> leader = leader();
        Optional<String> trouble = problem();
        return membership.members().thenApply(members -> new ClusterStatus(group, nodeId, state, leader,
                LeaseMembership.health(members, config.processHeartbeatInterval()), trouble,
                Optional.of(link.contact())));
    }

    @Override
    public CompletableFuture<Void> stepDown() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean fromListener = events.deliveringOnThisThread();
        scheduler.execute(() -> {
            if (state == State.LEADING) {
                holdingOff = true;
                holdOffUntil = clock.nanoTime() + config.checkInterval().toNanos();
                release(fromListener, done);
            } else {
                done.complete(null);
            }
        });
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
    public Registry membership() {
        return membership;
    }

    @Override
    public FencedRegister fencedRegister(String name) {
        return new FencedRegister(store.registers(), group, name);
    }

    /**
     * Closes the election. A leader stops acting, its listeners are told, and its lease is released; this process's
     * registry entry is removed. {@link #close()} blocks until that is done, at most about the lease TTL, except when
     * called from a listener or on the election's own thread (see {@link Election#close()}).
     */
    @Override
    public CompletableFuture<Void> closeAsync() {
        if (closeRequested.compareAndSet(false, true)) {
            boolean fromListener = events.deliveringOnThisThread();
            scheduler.execute(() -> onClose(fromListener));
        }
        return closed;
    }

    @Override
    public void close() {
        CompletableFuture<Void> done = closeAsync();
        if (events.deliveringOnThisThread() || scheduler.runsTaskOnThisThread()) {
            // The close needs this thread (a listener on a direct executor runs on the scheduler's thread) or waits
            // for this listener to return: waiting here would wait for ourselves until the timeout, with the lease
            // held all along. The release goes out as soon as this call returns.
            return;
        }
        try {
            done.get(config.leaseTtl().toNanos() + config.storeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Closing the election of group {} did not finish cleanly: {}", group, e.toString());
        }
    }

    // ------------------------------------------------------------------ state machine (scheduler only)

    private void onStart() {
        if (state != State.CREATED) {
            return;
        }
        state = State.FOLLOWING;
        link.started();
        leaseNotices = store.leases().watch(group, notice -> scheduler.execute(() -> onNotice(notice)));
        openElection();
        attempt();
        // Registering after the acquire keeps the registry write off the first election's path.
        membership.start();
    }

    private void attempt() {
        if (state != State.FOLLOWING) {
            return;
        }
        if (acquireInFlight) {
            recheckAfterFlight = true;
            return;
        }
        if (holdingOff && clock.nanoTime() - holdOffUntil < 0) {
            wakeIn(Duration.ofNanos(holdOffUntil - clock.nanoTime()));
            return;
        }
        holdingOff = false;
        wakeTimer.cancel();
        acquireInFlight = true;
        recheckAfterFlight = false;
        publishedState = NodeState.CANDIDATE;
        long attemptGeneration = generation;
        long sentAt = clock.nanoTime();
        NodeInfo candidate = membership.self().withRole(Role.LEADER);
        calls.call("acquire", config.storeTimeout(), () -> store.leases().acquire(group, candidate, config.leaseTtl()),
                (result, error) -> onAcquireReply(attemptGeneration, sentAt, result, error),
                this::onLateAcquireReply);
    }

    private void onAcquireReply(long attemptGeneration, long sentAt, AcquireResult result, Throwable error) {
        acquireInFlight = false;
        if (state == State.FOLLOWING) {
            publishedState = NodeState.FOLLOWER;
        }
        if (state == State.CLOSED || attemptGeneration != generation) {
            if (result instanceof AcquireResult.Granted granted) {
                // Granted after we stopped wanting it: hand it straight back instead of making others wait.
                releaseQuietly(granted.term());
            }
            return;
        }
        if (error != null) {
            acquireFailures++;
            reportError("acquire", "acquiring the lease failed", error);
            long backoff = config.retryInterval().toNanos() << Math.min(acquireFailures - 1, 16);
            wakeIn(Duration.ofNanos(Math.min(backoff, config.checkInterval().toNanos())).plus(jitter(config.expiryJitter())));
            return;
        }
        acquireFailures = 0;
        problem = null;
        if (result instanceof AcquireResult.Granted granted) {
            long deadline = sentAt + config.localValidity().toNanos();
            if (clock.nanoTime() - deadline >= 0) {
                log.warn("Lease for {} term {} was granted too late to be used; giving it back", group, granted.term());
                releaseQuietly(granted.term());
                wakeIn(config.retryInterval());
                return;
            }
            becomeLeader(granted.term(), sentAt, deadline);
        } else if (result instanceof AcquireResult.Denied denied) {
            learnLeader(new LeaderInfo(denied.current().owner(), denied.current().term()));
            closeElection(false);
            if (recheckAfterFlight) {
                attempt();
            } else {
                wakeAtExpiry(denied.current().remaining());
            }
        }
    }

    /**
     * A grant that arrived after its call timed out (a slow or paused store). This node never acted on it; hand it
     * back so that others need not wait for it to expire. Safe even if this node leads meanwhile: that leadership has
     * an older term, which the grant has already fenced off in the store, so its next renewal fails anyway.
     */
    private void onLateAcquireReply(AcquireResult result) {
        if (result instanceof AcquireResult.Granted granted
                && (current == null || current.term() != granted.term())) {
            releaseQuietly(granted.term());
        }
    }

    private void becomeLeader(long term, long sentAt, long deadline) {
        generation++;
        state = State.LEADING;
        publishedState = NodeState.LEADER;
        wakeTimer.cancel();
        currentDeadline = new LeaseDeadline(deadline);
        current = currentDeadline.leadership(group, nodeId, term, clock, this::holdsTerm);
        published = current;
        openElection();
        events.emit(new ElectionEvent.LeadershipAcquired(clock.instant(), current));
        learnLeader(current.info());
        closeElection(true);
        membership.onLeadershipAcquired();
        scheduleRenewal(sentAt + config.renewInterval().toNanos());
        armDeadline();
    }

    private boolean holdsTerm(long term) {
        Leadership leadership = published;
        return leadership != null && leadership.term() == term;
    }

    private void scheduleRenewal(long atNanos) {
        renewTimer.cancel();
        long renewalGeneration = generation;
        renewTimer = scheduler.schedule(Duration.ofNanos(Math.max(0, atNanos - clock.nanoTime())),
                () -> renew(renewalGeneration));
    }

    private void armDeadline() {
        deadlineTimer.cancel();
        long deadlineGeneration = generation;
        deadlineTimer = scheduler.schedule(Duration.ofNanos(Math.max(0, current.deadlineNanos() - clock.nanoTime())),
                () -> onDeadline(deadlineGeneration));
    }

    private void onDeadline(long deadlineGeneration) {
        if (state != State.LEADING || deadlineGeneration != generation) {
            return;
        }
        if (clock.nanoTime() - current.deadlineNanos() >= 0) {
            loseLeadership(LossReason.EXPIRED_LOCALLY);
        } else {
            armDeadline();
        }
    }

    private void renew(long renewalGeneration) {
        if (state != State.LEADING || renewalGeneration != generation) {
            return;
        }
        long sentAt = clock.nanoTime();
        long left = current.deadlineNanos() - sentAt;
        if (left <= 0) {
            loseLeadership(LossReason.EXPIRED_LOCALLY);
            return;
        }
        Duration timeout = Duration.ofNanos(Math.min(config.storeTimeout().toNanos(), left));
        long term = current.term();
        calls.call("renew", timeout, () -> store.leases().renew(group, nodeId, term, config.leaseTtl()),
                (renewed, error) -> onRenewReply(renewalGeneration, sentAt, renewed, error));
    }

    private void onRenewReply(long renewalGeneration, long sentAt, Boolean renewed, Throwable error) {
        if (state != State.LEADING || renewalGeneration != generation) {
            return;
        }
        if (error != null) {
            reportError("renew", "renewing the lease of term " + current.term() + " failed", error);
            // Retry until the deadline; the deadline timer ends the leadership if none succeeds.
            long retryAt = clock.nanoTime() + config.retryInterval().toNanos();
            if (retryAt - current.deadlineNanos() < 0) {
                scheduleRenewal(retryAt);
            }
            return;
        }
        if (!renewed) {
            loseLeadership(LossReason.LEASE_TAKEN);
            return;
        }
        problem = null;
        metrics.leaseRenewed(clock.nanoTime() - sentAt, current.deadlineNanos() - sentAt);
        currentDeadline.extendTo(sentAt + config.localValidity().toNanos());
        armDeadline();
        scheduleRenewal(sentAt + config.renewInterval().toNanos());
    }

    /** Ends the current term without releasing: the lease was taken or could not be renewed in time. */
    private void loseLeadership(LossReason reason) {
        long term = stopLeading();
        events.emit(new ElectionEvent.LeadershipLost(clock.instant(), term, reason));
        if (reason == LossReason.EXPIRED_LOCALLY) {
            reportError("renew", "leadership of term " + term + " expired locally before a renewal succeeded", null);
        }
        learnLeader(null);
        openElection();
        attempt();
    }

    /** Stops counting this node as leader, before anything is told or released. Returns the term given up. */
    private long stopLeading() {
        long term = current.term();
        generation++;
        state = State.FOLLOWING;
        publishedState = NodeState.FOLLOWER;
        published = null;
        current = null;
        currentDeadline = null;
        renewTimer.cancel();
        deadlineTimer.cancel();
        membership.onLeadershipLost();
        return term;
    }

    /**
     * Graceful release: stop leading, tell the listeners, and release the lease once they have all returned (or once
     * the deadline has passed, after which the lease is no longer ours to protect anyway).
     */
    private void release(boolean calledFromListener, CompletableFuture<Void> done) {
        long deadline = current.deadlineNanos();
        long term = stopLeading();
        CompletableFuture<Void> delivered = events.emit(
                new ElectionEvent.LeadershipLost(clock.instant(), term, LossReason.RELEASED));
        learnLeader(null);
        Runnable sendRelease = once(() -> calls.call("release", config.storeTimeout(),
                () -> store.leases().release(group, nodeId, term), (released, error) -> {
                    if (error != null) {
                        reportError("release", "releasing the lease of term " + term + " failed", error);
                    }
                    done.complete(null);
                }));
        if (calledFromListener) {
            // The listener that asked is itself delivering events; waiting for it would wait for ourselves.
            sendRelease.run();
            return;
        }
        Cancellable fallback = scheduler.schedule(Duration.ofNanos(Math.max(0, deadline - clock.nanoTime())),
                sendRelease);
        // Send the release from the thread that delivered the last LeadershipLost, saving a hop back to the scheduler;
        // this node stopped leading before the event was emitted, so nothing here touches the machine's state.
        delivered.whenComplete((ignored, error) -> {
            fallback.cancel();
            sendRelease.run();
        });
        if (state == State.FOLLOWING) {
            wakeIn(config.checkInterval());
        }
    }

    private void releaseQuietly(long term) {
        calls.call("release", config.storeTimeout(), () -> store.leases().release(group, nodeId, term),
                (released, error) -> {
        });
    }

    private void onNotice(LeaseNotice notice) {
        if (state == State.LEADING) {
            if (!notice.owner().equals(nodeId) && notice.term() > current.term()) {
                // Someone holds a newer term: find out now rather than at the next renewal.
                renew(generation);
            }
            return;
        }
        if (state != State.FOLLOWING) {
            return;
        }
        switch (notice.kind()) {
            case ACQUIRED -> {
                if (notice.owner().equals(nodeId) || notice.term() <= highestTermSeen) {
                    return;
                }
                holdingOff = false;
                learnLeader(new LeaderInfo(notice.owner(), notice.term()));
                closeElection(false);
                if (!acquireInFlight) {
                    wakeAtExpiry(config.leaseTtl());
                }
            }
            case RELEASED -> {
                if (notice.term() < highestTermSeen) {
                    return;
                }
                learnLeader(null);
                if (holdingOff) {
                    return;
                }
                openElection();
                if (config.releaseJitter().isZero()) {
                    attempt();
                } else {
                    wakeIn(jitter(config.releaseJitter()));
                }
            }
        }
    }

    private void onClose(boolean calledFromListener) {
        if (state == State.CLOSED) {
            return;
        }
        CompletableFuture<Void> released = new CompletableFuture<>();
        if (state == State.LEADING) {
            release(calledFromListener, released);
        } else {
            released.complete(null);
        }
        boolean wasStarted = state != State.CREATED;
        state = State.CLOSED;
        publishedState = NodeState.STOPPED;
        generation++;
        wakeTimer.cancel();
        firstRound.completeExceptionally(new IllegalStateException("closed"));
        // Tear down only after the release went out: a graceful handover should not wait for our unsubscribing.
        released.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (leaseNotices != null) {
                leaseNotices.close();
            }
            CompletableFuture<Void> unregistered = wasStarted
                    ? membership.stop() : CompletableFuture.completedFuture(null);
            unregistered.whenComplete((nothing, failure) -> finishClose());
        }));
    }

    private void finishClose() {
        closed.complete(null);
        if (afterClose != null) {
            afterClose.run();
        }
    }

    // ------------------------------------------------------------------ helpers

    private void wakeAtExpiry(Duration remaining) {
        Duration atExpiry = remaining.plus(jitter(config.expiryJitter()));
        Duration poll = config.checkInterval().plus(jitter(config.electionJitter()));
        wakeIn(atExpiry.compareTo(poll) < 0 ? atExpiry : poll);
    }

    private void wakeIn(Duration delay) {
        wakeTimer.cancel();
        long wakeGeneration = generation;
        wakeTimer = scheduler.schedule(delay, () -> {
            if (wakeGeneration == generation) {
                attempt();
            }
        });
    }

    private Duration jitter(Duration max) {
        long bound = max.toNanos();
        return bound <= 0 ? Duration.ZERO : Duration.ofNanos((long) (random.nextDouble() * bound));
    }

    private void learnLeader(LeaderInfo leader) {
        if (leader != null) {
            highestTermSeen = Math.max(highestTermSeen, leader.term());
        }
        if (!Objects.equals(leader, known)) {
            known = leader;
            publishedLeader = leader;
            events.emit(new ElectionEvent.LeaderChanged(clock.instant(), Optional.ofNullable(leader)));
        }
    }

    private void openElection() {
        if (!electionOpen) {
            electionOpen = true;
            events.emit(new ElectionEvent.ElectionStarted(clock.instant()));
        }
    }

    private void closeElection(boolean leader) {
        if (electionOpen) {
            electionOpen = false;
            events.emit(new ElectionEvent.ElectionCompleted(clock.instant(), leader, Optional.ofNullable(known)));
        }
        firstRound.complete(leader);
    }

    /**
     * A store call of {@code kind} failed ({@code cause} set), or a leadership ended for want of one (no cause). The
     * first is counted by the outage log, which keeps a store that stays down from flooding the log; the second is
     * rare (once per term) and always logged.
     */
    private void reportError(String kind, String what, Throwable cause) {
        String message = cause == null ? what : what + ": " + describe(cause);
        if (cause != null) {
            link.failed(kind, message);
            problem = message;
        } else {
            log.warn("[{}] {}", group, message);
        }
        events.emit(new ElectionEvent.ElectionError(clock.instant(), message, cause));
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }

    private static Runnable once(Runnable action) {
        AtomicBoolean ran = new AtomicBoolean();
        return () -> {
            if (ran.compareAndSet(false, true)) {
                action.run();
            }
        };
    }

    @Override
    public String toString() {
        return "LeaseElection{group=" + group + ", node=" + nodeId + ", store=" + store.describe() + "}";
    }
}
