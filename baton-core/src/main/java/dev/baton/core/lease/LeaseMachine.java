package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import dev.baton.core.Role;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease election's state machine (DESIGN §3): it decides every transition from the store's replies, the clock
 * and push notices, and says what follows through its two ports, {@link LeaseCalls} (the store calls to make) and
 * {@link LeaseOutput} (the events to emit and the snapshot to publish). It holds no store, starts no thread and
 * reads time only through {@link Clock}.
 *
 * <p>Every input (a store reply, a timer, a push notice, a user command) runs as a task of its {@link Scheduler}, so
 * its state needs no locks, and under a fake clock and a deterministic scheduler every run is reproducible. Timers
 * and replies carry the {@code generation} they were made in; one from an older generation (a leadership since
 * ended, an election since reopened) is ignored.
 *
 * <p>The safety rules it enforces are listed on {@link LeaseElection}.
 */
final class LeaseMachine {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private enum State { CREATED, FOLLOWING, LEADING, CLOSED }

    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Random random;
    private final ElectionMetrics metrics;
    private final LeaseCalls storeCalls;
    private final LeaseOutput output;
    private final LeaseMembership membership;

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
    /** The waiting follower's acquire, sent straight from the notice thread on a release (see {@link ArmedAcquire}). */
    private final ArmedAcquire armed = new ArmedAcquire();
    /** Whether leases are bound to the process's store session ({@link SessionKeeper}) instead of each having a TTL. */
    private final boolean sessionBound;
    /** The open session to bind leases to; null while there is none (and always with leases of their own). */
    private SessionKeeper.Session session;
    /** The session holding the group while this node follows it, when the store named one; else null. */
    private String holderSession;
    /** Asks the session keeper to say when a session holding the group ends (see {@link #onHolderSessionEnded}). */
    private final SessionWaits sessionWaits;

    /** The session keeper's wait for another process's session, as this machine sees it. */
    interface SessionWaits {
        void awaitEnd(String session, Duration remaining);

        SessionWaits NONE = (session, remaining) -> { };
    }

    /**
     * The session the current leadership is bound to (null while not leading, or with a lease of its own). Volatile:
     * the session keeper reads it from its own thread when it extends the session ({@link #leadsIn}).
     */
    private volatile SessionKeeper.Session leadingSession;

    LeaseMachine(String group, String nodeId, ElectionConfig config, Clock clock, Scheduler scheduler, Random random,
            ElectionMetrics metrics, LeaseCalls storeCalls, LeaseOutput output, LeaseMembership membership,
            boolean sessionBound, SessionWaits sessionWaits) {
        this.sessionBound = sessionBound;
        this.sessionWaits = sessionWaits;
        this.group = group;
        this.nodeId = nodeId;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.metrics = metrics;
        this.storeCalls = storeCalls;
        this.output = output;
        this.membership = membership;
    }

    /**
     * Gives up leadership if held, releasing the lease once listeners have returned, and holds off contending for
     * {@code checkInterval}; {@code done} completes when the release was answered (at once if not leading).
     */
    void onStepDown(boolean calledFromListener, CompletableFuture<Void> done) {
        if (state == State.LEADING) {
            holdingOff = true;
            holdOffUntil = clock.nanoTime() + config.checkInterval().toNanos();
            release(calledFromListener, done);
        } else {
            done.complete(null);
        }
    }

    /** Starts contending: watch the lease, try to take it, then register this process. */
    void onStart() {
        if (state != State.CREATED) {
            return;
        }
        state = State.FOLLOWING;
        output.started();
        leaseNotices = storeCalls.watch(this::onNoticeArrived);
        // The acquire goes out before ElectionStarted is emitted, so that listeners woken by it (the event log's
        // write among them) do not compete with the first election; its reply is handled in a later task anyway.
        attempt();
        openElection();
        // Registering after the acquire keeps the registry write off the first election's path.
        membership.start();
    }

    private void attempt() {
        if (state != State.FOLLOWING) {
            return;
        }
        if (sessionBound && session == null) {
            return; // contends as soon as a session is open (onSessionOpened)
        }
        if (acquireInFlight || !armed.disarmForAttempt()) {
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
        output.publishState(NodeState.CANDIDATE);
        long attemptGeneration = generation;
        long sentAt = clock.nanoTime();
        NodeInfo candidate = membership.self().withRole(Role.LEADER);
        SessionKeeper.Session bound = session;
        storeCalls.acquire(candidate, bound,
                (result, error) -> onAcquireReply(attemptGeneration, sentAt, bound, result, error),
                late -> onLateAcquireReply(bound, late));
    }

    private void onAcquireReply(long attemptGeneration, long sentAt, SessionKeeper.Session bound,
            AcquireResult result, Throwable error) {
        acquireInFlight = false;
        if (state == State.FOLLOWING) {
            output.publishState(NodeState.FOLLOWER);
        }
        if (state == State.CLOSED || attemptGeneration != generation) {
            if (result instanceof AcquireResult.Granted granted) {
                // Granted after we stopped wanting it: hand it straight back instead of making others wait.
                handBack(granted.term(), bound);
            }
            return;
        }
        if (sessionBound && bound != session) {
            // The session ended while the call was out: a lease bound to it is worth nothing. Free it, try again.
            if (result instanceof AcquireResult.Granted granted) {
                handBack(granted.term(), bound);
            }
            attempt();
            return;
        }
        if (error != null) {
            acquireFailures++;
            output.reportError("acquire", "acquiring the lease failed", error);
            long backoff = config.retryInterval().toNanos() << Math.min(acquireFailures - 1, 16);
            wakeIn(Duration.ofNanos(Math.min(backoff, config.checkInterval().toNanos())).plus(jitter(config.expiryJitter())));
            return;
        }
        acquireFailures = 0;
        output.clearProblem();
        if (result instanceof AcquireResult.Granted granted) {
            // A lease bound to a session lives as long as the session: its deadline is the session's.
            long deadline = bound != null ? bound.deadline().nanos() : sentAt + config.localValidity().toNanos();
            if (clock.nanoTime() - deadline >= 0) {
                log.warn("Lease for {} term {} was granted too late to be used; giving it back", group, granted.term());
                handBack(granted.term(), bound);
                wakeIn(config.retryInterval());
                return;
            }
            if (granted.term() < highestTermSeen) {
                // A grant the store has already moved on from (a later call of ours overtook this one and was
                // granted, or handed back, a newer term; or another node holds one): its lease is gone.
                log.warn("Lease for {} term {} was granted after term {} was seen; not leading it", group,
                        granted.term(), highestTermSeen);
                handBack(granted.term(), bound);
                attempt();
                return;
            }
            becomeLeader(granted.term(), sentAt, deadline, bound);
        } else if (result instanceof AcquireResult.Denied denied) {
            learnLeader(new LeaderInfo(denied.current().owner(), denied.current().term()));
            closeElection(false);
            if (recheckAfterFlight) {
                attempt();
            } else {
                waitFor(denied.current());
                armIfWaiting();
            }
        }
    }

    /**
     * A grant that arrived after its call timed out (a slow or paused store, a request stuck behind others). This node
     * never acted on it; hand it back so that others need not wait for it to expire (see {@link #handBack}).
     */
    private void onLateAcquireReply(SessionKeeper.Session bound, AcquireResult result) {
        if (result instanceof AcquireResult.Granted granted
                && (current == null || current.term() != granted.term())) {
            handBack(granted.term(), bound);
        }
    }

    /**
     * Gives back a grant this node will not lead. Stores grant the holder of a live lease a new term when it asks
     * again, so a straggling acquire of ours can be granted a term above the one this node leads: the store has then
     * moved on from that term, and releasing the newer one frees the lease for another node at once. So a leadership
     * of an older term ends first, exactly as a step-down does (it stops counting itself leader, its listeners hear
     * {@code LeadershipLost} and the release waits for them, until its deadline at most); only then does the lease
     * go. And no grant below this one is led from now on: it too is already superseded.
     */
    private void handBack(long term, SessionKeeper.Session bound) {
        if (term > highestTermSeen) {
            highestTermSeen = term;
        }
        if (state == State.LEADING && current.term() < term) {
            log.warn("Lease for {} was granted to this node again under term {} by a late acquire; ending term {} "
                    + "before giving it back", group, term, current.term());
            release(term, bound, LossReason.LEASE_TAKEN, false, new CompletableFuture<>());
        } else {
            releaseQuietly(term, bound);
        }
    }

    private void becomeLeader(long term, long sentAt, long deadline, SessionKeeper.Session bound) {
        armed.disarm();
        generation++;
        state = State.LEADING;
        output.publishState(NodeState.LEADER);
        wakeTimer.cancel();
        metrics.validUntil(term, deadline);
        leadingSession = bound;
        holderSession = null;
        // Bound to a session, the leadership shares the session's deadline, which only the session keeper moves.
        currentDeadline = bound != null ? bound.deadline() : new LeaseDeadline(deadline);
        current = currentDeadline.leadership(group, nodeId, term, clock, this::holdsTerm);
        output.publishLeadership(current);
        openElection();
        output.emit(new ElectionEvent.LeadershipAcquired(clock.instant(), current));
        learnLeader(current.info());
        closeElection(true);
        membership.onLeadershipAcquired();
        if (bound == null) {
            scheduleRenewal(sentAt + config.renewInterval().toNanos());
            armDeadline();
        }
    }

    private boolean holdsTerm(long term) {
        Leadership leadership = output.leadership();
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
        storeCalls.renew(term, timeout, (renewed, error) -> onRenewReply(renewalGeneration, sentAt, renewed, error));
    }

    private void onRenewReply(long renewalGeneration, long sentAt, Boolean renewed, Throwable error) {
        if (state != State.LEADING || renewalGeneration != generation) {
            return;
        }
        if (error != null) {
            output.reportError("renew", "renewing the lease of term " + current.term() + " failed", error);
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
        output.clearProblem();
        metrics.leaseRenewed(clock.nanoTime() - sentAt, current.deadlineNanos() - sentAt);
        long extended = sentAt + config.localValidity().toNanos();
        if (extended - current.deadlineNanos() > 0) {
            metrics.validUntil(current.term(), extended);
            currentDeadline.extendTo(extended);
        }
        armDeadline();
        scheduleRenewal(sentAt + config.renewInterval().toNanos());
    }

    /**
     * A leader bound to a session, told of a newer term: it has no renewal to ask, so it reads the lease and ends its
     * term if the lease is no longer its own.
     */
    private void verify(long verifyGeneration) {
        if (current.deadlineNanos() - clock.nanoTime() <= 0) {
            // As renew() would: past its deadline (a paused process just woke up) the term ended on its own clock.
            loseLeadership(LossReason.EXPIRED_LOCALLY);
            return;
        }
        long term = current.term();
        storeCalls.read((lease, error) -> {
            if (state != State.LEADING || verifyGeneration != generation || error != null) {
                return;
            }
            if (lease.isEmpty() || lease.get().term() != term) {
                loseLeadership(LossReason.LEASE_TAKEN);
            }
        });
    }

    /** Ends the current term without releasing: the lease was taken or could not be renewed in time. */
    private void loseLeadership(LossReason reason) {
        long term = stopLeading();
        output.emit(new ElectionEvent.LeadershipLost(clock.instant(), term, reason));
        if (reason == LossReason.EXPIRED_LOCALLY) {
            output.reportError("renew", "leadership of term " + term + " expired locally before a renewal succeeded", null);
        }
        learnLeader(null);
        openElection();
        attempt();
    }

    /** Stops counting this node as leader, before anything is told or released. Returns the term given up. */
    private long stopLeading() {
        long term = current.term();
        armed.disarm();
        generation++;
        state = State.FOLLOWING;
        output.publishState(NodeState.FOLLOWER);
        output.publishLeadership(null);
        current = null;
        currentDeadline = null;
        leadingSession = null;
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
        release(current.term(), leadingSession, LossReason.RELEASED, calledFromListener, done);
    }

    /**
     * Stops leading the current term for {@code reason}, then releases the lease under {@code leaseTerm} (the current
     * term, or a newer one the store granted this node by a late acquire) once the listeners have returned.
     */
    private void release(long leaseTerm, SessionKeeper.Session leaseSession, LossReason reason,
            boolean calledFromListener, CompletableFuture<Void> done) {
        long deadline = current.deadlineNanos();
        long term = stopLeading();
        CompletableFuture<Void> delivered = output.emit(new ElectionEvent.LeadershipLost(clock.instant(), term, reason));
        learnLeader(null);
        Runnable sendRelease = once(() -> storeCalls.release(leaseTerm, leaseSession, (released, error) -> {
                    if (error != null) {
                        output.reportError("release", "releasing the lease of term " + leaseTerm + " failed", error);
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

    /**
     * On the store's notice thread. A release this waiting follower is armed for sends the acquire from here, at once;
     * the machine hears of it through a task queued before the acquire goes out, so before its reply. Every other
     * notice is handed to the scheduler.
     */
    private void onNoticeArrived(LeaseNotice notice) {
        ArmedAcquire.Shot shot = notice.kind() == LeaseNotice.Kind.RELEASED ? armed.fire(notice.term()) : null;
        if (shot == null) {
            scheduler.execute(() -> onNotice(notice));
            return;
        }
        scheduler.execute(() -> onFiredAcquire(notice));
        long sentAt = clock.nanoTime();
        // The node as it is now (its metadata may have changed since the acquire was armed).
        storeCalls.acquire(membership.self().withRole(Role.LEADER), shot.session(),
                (result, error) -> onAcquireReply(shot.generation(), sentAt, shot.session(), result, error),
                late -> onLateAcquireReply(shot.session(), late));
    }

    /** The acquire the notice thread sent on {@code notice}: from now on it is this machine's acquire in flight. */
    private void onFiredAcquire(LeaseNotice notice) {
        armed.takeOver();
        acquireInFlight = true;
        if (state != State.FOLLOWING) {
            return; // closed meanwhile: the reply is from an older generation and a grant is handed back
        }
        wakeTimer.cancel();
        if (notice.term() >= highestTermSeen) {
            learnLeader(null);
        }
        openElection();
        output.publishState(NodeState.CANDIDATE);
    }

    /**
     * Arms the acquire for the next release notice while this node follows and waits, as {@link #onNotice} would
     * contend on it: not while an acquire is in flight, while holding off after a step-down, or with a release jitter.
     */
    private void armIfWaiting() {
        if (state == State.FOLLOWING && !acquireInFlight && !holdingOff && config.releaseJitter().isZero()
                && (!sessionBound || session != null)) {
            armed.arm(new ArmedAcquire.Shot(generation, highestTermSeen, session));
        } else {
            armed.disarm();
        }
    }

    private void releaseQuietly(long term, SessionKeeper.Session bound) {
        storeCalls.release(term, bound, (released, error) -> {
        });
    }

    // ------------------------------------------------------------------ the store session (when bound to one)

    /** The term this machine leads bound to {@code s}, or empty; from any thread. */
    OptionalLong leadsIn(SessionKeeper.Session s) {
        Leadership leadership = output.leadership();
        return leadingSession == s && leadership != null
                ? OptionalLong.of(leadership.term()) : OptionalLong.empty();
    }

    /** A session is open: contend with it (the session keeper says so on this machine's scheduler). */
    void onSessionOpened(SessionKeeper.Session opened) {
        if (state == State.CLOSED) {
            return;
        }
        session = opened;
        membership.onSessionOpened(opened);
        if (state == State.FOLLOWING) {
            attempt();
        }
    }

    /** The session ended: a leadership bound to it ends with it, and contending waits for the next session. */
    void onSessionLost(SessionKeeper.Session lost, LossReason reason) {
        if (session == lost) {
            session = null;
            armed.disarm();
        }
        membership.onSessionLost(lost);
        if (state == State.LEADING && leadingSession == lost) {
            loseLeadership(reason);
        }
    }

    private void onNotice(LeaseNotice notice) {
        if (state == State.LEADING) {
            if (!notice.owner().equals(nodeId) && notice.term() > current.term()) {
                // Someone holds a newer term: find out now rather than at the next renewal.
                if (leadingSession != null) {
                    verify(generation);
                } else {
                    renew(generation);
                }
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
                holderSession = null; // a new holder: its session is learned at the next denial
                learnLeader(new LeaderInfo(notice.owner(), notice.term()));
                closeElection(false);
                if (!acquireInFlight) {
                    wakeAtExpiry(config.leaseTtl());
                    armIfWaiting();
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

    /**
     * Closes: a leader releases (see {@link #release}), the machine stops, and once the release went out the lease
     * watch and this process's registry entry are removed; then {@code onClosed} runs.
     */
    void onClose(boolean calledFromListener, Runnable onClosed) {
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
        armed.disarm();
        state = State.CLOSED;
        output.publishState(NodeState.STOPPED);
        generation++;
        wakeTimer.cancel();
        output.closed();
        // Tear down only after the release went out: a graceful handover should not wait for our unsubscribing.
        released.whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (leaseNotices != null) {
                leaseNotices.close();
            }
            CompletableFuture<Void> unregistered = wasStarted
                    ? membership.stop() : CompletableFuture.completedFuture(null);
            unregistered.whenComplete((nothing, failure) -> onClosed.run());
        }));
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Waits for the lease that stands. One bound to another process's session is waited for through the session
     * keeper, which asks once per session for every group the process follows; this group then polls only as a
     * fallback for a lost release notice, once a lease TTL (a lost notice costs at most what a crash costs).
     */
    private void waitFor(Lease lease) {
        if (sessionBound && lease.boundToSession()) {
            holderSession = lease.session();
            sessionWaits.awaitEnd(lease.session(), lease.remaining());
            Duration fallback = config.checkInterval().compareTo(config.leaseTtl()) > 0
                    ? config.checkInterval() : config.leaseTtl();
            wakeIn(fallback.plus(jitter(config.electionJitter())));
        } else {
            holderSession = null;
            wakeAtExpiry(lease.remaining());
        }
    }

    /** The session holding the group ended (the session keeper found it gone): contend now. */
    void onHolderSessionEnded(String session) {
        if (state == State.FOLLOWING && session.equals(holderSession)) {
            holderSession = null;
            learnLeader(null);
            openElection();
            attempt();
        }
    }

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
        if (leader != null && leader.term() > highestTermSeen) {
            highestTermSeen = leader.term();
            if (armed.armed()) {
                armIfWaiting(); // re-armed above the newer term: a release of an older one is stale
            }
        }
        if (!Objects.equals(leader, known)) {
            known = leader;
            output.publishLeader(leader);
            output.emit(new ElectionEvent.LeaderChanged(clock.instant(), Optional.ofNullable(leader)));
        }
    }

    private void openElection() {
        if (!electionOpen) {
            electionOpen = true;
            output.emit(new ElectionEvent.ElectionStarted(clock.instant()));
        }
    }

    private void closeElection(boolean leader) {
        if (electionOpen) {
            electionOpen = false;
            output.emit(new ElectionEvent.ElectionCompleted(clock.instant(), leader, Optional.ofNullable(known)));
        }
        output.roundResolved(leader);
    }

    private static Runnable once(Runnable action) {
        AtomicBoolean ran = new AtomicBoolean();
        return () -> {
            if (ran.compareAndSet(false, true)) {
                action.run();
            }
        };
    }
}
