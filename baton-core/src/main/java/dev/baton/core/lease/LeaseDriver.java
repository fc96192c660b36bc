package dev.baton.core.lease;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.Leadership;
import dev.baton.core.Role;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Subscription;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.core.time.Scheduler.Cancellable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drives a {@link LeaseMachine}: feeds it every input on the election's {@link Scheduler}, one at a time, performs the
 * actions each step answers, in order, and keeps one timer for the wake-up it asks for. It owns everything that
 * touches threads, so the machine touches none:
 *
 * <ul>
 *   <li>store calls go out through {@link LeaseCalls}, and their replies (or timeouts) come back as inputs naming the
 *       call;</li>
 *   <li>the <b>armed acquire</b>: push notices arrive on the store's thread, and a release this waiting follower is
 *       armed for sends the acquire from there at once ({@link ArmedAcquire}), telling the machine through an input
 *       queued before the acquire goes out, so before its reply;</li>
 *   <li>the <b>release after the listeners</b>: a graceful release is sent from the thread that delivered the last
 *       {@code LeadershipLost}, saving a hop back to the scheduler, or at the ended leadership's deadline if a
 *       listener is still busy then.</li>
 * </ul>
 *
 * <p>Under a fake clock and a deterministic scheduler, with the notices delivered by the test, every run is
 * reproducible, the two shortcuts included.
 */
final class LeaseDriver {

    /** The session keeper's wait for another process's session, as the driver asks for it. */
    interface SessionWaits {
        void awaitEnd(String session, Duration remaining);

        SessionWaits NONE = (session, remaining) -> { };
    }

    private final String group;
    private final String nodeId;
    private final LeaseMachine machine;
    private final Clock clock;
    private final Scheduler scheduler;
    private final ElectionMetrics metrics;
    private final LeaseCalls storeCalls;
    private final LeaseOutput output;
    private final LeaseMembership membership;
    private final SessionWaits sessionWaits;
    private final ArmedAcquire armed = new ArmedAcquire();

    /** Inputs not yet stepped: those the driver produces itself while performing a step wait here for their turn. */
    private final ArrayDeque<LeaseInput> inbox = new ArrayDeque<>();
    private boolean stepping;
    private Cancellable timer = Cancellable.NONE;
    private boolean timerSet;
    private long timerAt;
    private long timerToken;
    private Subscription leaseNotices;
    /**
     * The session the current leadership is bound to (null while not leading, or with a lease of its own). Volatile:
     * the session keeper reads it from its own thread when it extends the session ({@link #leadsIn}).
     */
    private volatile SessionKeeper.Session leadingSession;

    LeaseDriver(String group, String nodeId, LeaseMachine machine, Clock clock, Scheduler scheduler,
            ElectionMetrics metrics, LeaseCalls storeCalls, LeaseOutput output, LeaseMembership membership,
            SessionWaits sessionWaits) {
        this.group = group;
        this.nodeId = nodeId;
        this.machine = machine;
        this.clock = clock;
        this.scheduler = scheduler;
        this.metrics = metrics;
        this.storeCalls = storeCalls;
        this.output = output;
        this.membership = membership;
        this.sessionWaits = sessionWaits;
    }

    /** Hands {@code input} to the machine on the scheduler, from any thread. */
    void submit(LeaseInput input) {
        scheduler.execute(() -> handle(input));
    }

    /**
     * On the scheduler: steps the machine with {@code input}, performs what it answers, and then the inputs that
     * performing it produced, until there are none.
     */
    void handle(LeaseInput input) {
        inbox.add(input);
        if (stepping) {
            return;
        }
        stepping = true;
        try {
            LeaseInput next;
            while ((next = inbox.poll()) != null) {
                LeaseMachine.Step step = machine.step(next, clock.nanoTime(), clock.instant());
                for (LeaseAction action : step.actions()) {
                    perform(action);
                }
                wakeAt(step.wakeAt());
            }
        } finally {
            stepping = false;
        }
    }

    /** The term this election leads bound to {@code session}, or empty; from any thread. */
    OptionalLong leadsIn(SessionKeeper.Session session) {
        Leadership leadership = output.leadership();
        return leadingSession == session && leadership != null
                ? OptionalLong.of(leadership.term()) : OptionalLong.empty();
    }

    // ------------------------------------------------------------------ the timer

    private void wakeAt(OptionalLong wakeAt) {
        if (wakeAt.isEmpty()) {
            cancelTimer();
            return;
        }
        long at = wakeAt.getAsLong();
        if (timerSet && timerAt == at) {
            return;
        }
        cancelTimer();
        long token = ++timerToken;
        timerSet = true;
        timerAt = at;
        timer = scheduler.schedule(Duration.ofNanos(Math.max(0, at - clock.nanoTime())), () -> {
            if (token == timerToken) {
                timerSet = false;
                handle(new LeaseInput.Tick());
            }
        });
    }

    private void cancelTimer() {
        if (timerSet) {
            timer.cancel();
            timer = Cancellable.NONE;
            timerSet = false;
            timerToken++;
        }
    }

    // ------------------------------------------------------------------ performing a step

    private void perform(LeaseAction action) {
        if (action instanceof LeaseAction.Acquire acquire) {
            acquire(acquire);
        } else if (action instanceof LeaseAction.Renew renew) {
            storeCalls.renew(renew.term(), renew.timeout(),
                    (renewed, error) -> handle(new LeaseInput.RenewReplied(renew.call(), renewed, error)));
        } else if (action instanceof LeaseAction.Read read) {
            storeCalls.read((lease, error) -> handle(new LeaseInput.ReadReplied(read.call(), lease, error)));
        } else if (action instanceof LeaseAction.Release release) {
            release(release.term(), release.session(), release.done());
        } else if (action instanceof LeaseAction.ReleaseAfterListeners release) {
            releaseAfterListeners(release);
        } else if (action instanceof LeaseAction.TearDown tearDown) {
            tearDown(tearDown);
        } else if (action instanceof LeaseAction.Watch) {
            leaseNotices = storeCalls.watch(this::onNoticeArrived);
        } else if (action instanceof LeaseAction.Arm arm) {
            armed.arm(arm.shot());
        } else if (action instanceof LeaseAction.Disarm) {
            armed.disarm();
        } else if (action instanceof LeaseAction.AwaitHolderSession wait) {
            sessionWaits.awaitEnd(wait.session(), wait.remaining());
        } else if (action instanceof LeaseAction.Lead lead) {
            leadingSession = lead.session();
            output.publishLeadership(lead.deadline().leadership(group, nodeId, lead.term(), clock, this::holdsTerm));
        } else if (action instanceof LeaseAction.AnnounceLead announce) {
            output.emit(new ElectionEvent.LeadershipAcquired(announce.at(), output.leadership()));
        } else if (action instanceof LeaseAction.Unlead) {
            output.publishLeadership(null);
            leadingSession = null;
        } else if (action instanceof LeaseAction.Extend extend) {
            extend.deadline().extendTo(extend.nanos());
        } else if (action instanceof LeaseAction.PublishState publish) {
            output.publishState(publish.state());
        } else if (action instanceof LeaseAction.PublishLeader publish) {
            output.publishLeader(publish.leader());
        } else if (action instanceof LeaseAction.Emit emit) {
            output.emit(emit.event());
        } else if (action instanceof LeaseAction.RoundResolved round) {
            output.roundResolved(round.leading());
        } else if (action instanceof LeaseAction.Started) {
            output.started();
        } else if (action instanceof LeaseAction.Closed) {
            output.closed();
        } else if (action instanceof LeaseAction.ReportError error) {
            output.reportError(error.kind(), error.what(), error.cause());
        } else if (action instanceof LeaseAction.ClearProblem) {
            output.clearProblem();
        } else if (action instanceof LeaseAction.Complete complete) {
            complete.done().complete(null);
        } else if (action instanceof LeaseAction.Members members) {
            members(members);
        } else if (action instanceof LeaseAction.ValidUntil valid) {
            metrics.validUntil(valid.term(), valid.nanos());
        } else if (action instanceof LeaseAction.Renewed renewed) {
            metrics.leaseRenewed(renewed.latencyNanos(), renewed.marginNanos());
        } else {
            throw new IllegalStateException("unknown action " + action);
        }
    }

    private boolean holdsTerm(long term) {
        Leadership leadership = output.leadership();
        return leadership != null && leadership.term() == term;
    }

    /** The machine's own attempt: sent unless the notice thread fired the armed acquire first (checked atomically). */
    private void acquire(LeaseAction.Acquire acquire) {
        if (!armed.disarmForAttempt()) {
            inbox.add(new LeaseInput.AcquireNotSent(acquire.call()));
            return;
        }
        send(acquire.call(), acquire.session());
    }

    private void send(long call, SessionKeeper.Session session) {
        long sentAt = clock.nanoTime();
        // The node as it is now (its metadata may have changed since the acquire was armed).
        storeCalls.acquire(membership.self().withRole(Role.LEADER), session,
                (result, error) -> handle(new LeaseInput.AcquireReplied(call, sentAt, session, result, error)),
                late -> handle(new LeaseInput.AcquireLate(session, late)));
    }

    /**
     * On the store's notice thread. A release this waiting follower is armed for sends the acquire from here, at once;
     * the machine hears of it through a task queued before the acquire goes out, so before its reply. Every other
     * notice is handed to the scheduler.
     */
    private void onNoticeArrived(LeaseNotice notice) {
        ArmedAcquire.Shot shot = notice.kind() == LeaseNotice.Kind.RELEASED ? armed.fire(notice.term()) : null;
        if (shot == null) {
            submit(new LeaseInput.Notice(notice));
            return;
        }
        scheduler.execute(() -> {
            armed.takeOver();
            handle(new LeaseInput.AcquireFired(notice, shot.call()));
        });
        send(shot.call(), shot.session());
    }

    private void release(long term, SessionKeeper.Session session, CompletableFuture<Void> done) {
        storeCalls.release(term, session, (released, error) -> {
            if (done != null) {
                handle(new LeaseInput.ReleaseReplied(term, error, done));
            }
        });
    }

    /**
     * Sends the release from the thread that delivered the last {@code LeadershipLost}: the machine stopped leading
     * before the event was emitted, so nothing there touches its state. At the fallback time at the latest.
     */
    private void releaseAfterListeners(LeaseAction.ReleaseAfterListeners action) {
        CompletableFuture<Void> delivered = output.emit(action.lost());
        AtomicBoolean sent = new AtomicBoolean();
        Runnable sendRelease = () -> {
            if (sent.compareAndSet(false, true)) {
                release(action.term(), action.session(), action.done());
            }
        };
        Cancellable fallback = scheduler.schedule(Duration.ofNanos(Math.max(0, action.fallbackAt() - clock.nanoTime())),
                sendRelease);
        delivered.whenComplete((ignored, error) -> {
            fallback.cancel();
            sendRelease.run();
        });
    }

    private void tearDown(LeaseAction.TearDown tearDown) {
        tearDown.released().whenComplete((ignored, error) -> scheduler.execute(() -> {
            if (leaseNotices != null) {
                leaseNotices.close();
            }
            CompletableFuture<Void> unregistered = tearDown.started()
                    ? membership.stop() : CompletableFuture.completedFuture(null);
            unregistered.whenComplete((nothing, failure) -> tearDown.onClosed().run());
        }));
    }

    private void members(LeaseAction.Members members) {
        switch (members.change()) {
            case START -> membership.start();
            case LEADING -> membership.onLeadershipAcquired();
            case NOT_LEADING -> membership.onLeadershipLost();
            case SESSION_OPENED -> membership.onSessionOpened(members.session());
            case SESSION_LOST -> membership.onSessionLost(members.session());
        }
    }
}
