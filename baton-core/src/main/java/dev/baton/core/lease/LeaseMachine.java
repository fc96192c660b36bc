package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeState;
import dev.baton.core.lease.LeaseAction.MemberChange;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease election's decisions, as a step function (DESIGN §3): {@link #step} takes one {@link LeaseInput} and the
 * time, and answers the {@link LeaseAction actions} that follow, in order, and when it wants to be woken next. It makes
 * no call, starts no thread, reads no clock and touches nothing outside itself; {@link LeaseDriver} performs what it
 * answers and feeds it what happens. So a test can drive it input by input and read every decision it makes.
 *
 * <p>Its state is a {@link Phase}: not started, following (maybe with an acquire in flight, holding off, or waiting for
 * a holder's session), leading a term (with its renewal or check in flight), or closed. Each store call it asks for
 * carries an id; a reply naming another call than the one the phase waits for is stale (the leadership it was for has
 * ended, or the election closed), and a grant in a stale reply is handed back. Besides its phase it remembers the
 * highest term it has seen (never goes back, so late notices are ignored), the leader it knows, whether an election
 * round is open, and the process's store session when bound to one.
 *
 * <p>With leases bound to a session, the one value it reads that it does not own is the session's deadline, which the
 * session keeper alone moves, and which every leadership bound to the session shares.
 *
 * <p>The safety rules it enforces are listed on {@link LeaseElection}.
 */
final class LeaseMachine {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);
    private static final long NO_CALL = 0;

    /** The actions of one step, in the order they must be performed, and when to wake the machine next. */
    record Step(List<LeaseAction> actions, OptionalLong wakeAt) {
    }

    /** Where the election stands. */
    sealed interface Phase permits NotStarted, Following, Leading, Closed {
    }

    /** Built, not started. */
    static final class NotStarted implements Phase {
    }

    /** Following: contending for the lease, or waiting for its holder to give it up or die. */
    static final class Following implements Phase {
        /** The acquire in flight, or {@link #NO_CALL}. */
        long acquireCall = NO_CALL;
        /** Something asked for an attempt while one was in flight: try again once it is answered. */
        boolean recheck;
        int acquireFailures;
        /** After a step-down, no attempt before {@link #holdOffUntil}. */
        boolean holdingOff;
        long holdOffUntil;
        /** The session holding the group while this node waits for it, when the store named one; else null. */
        String holderSession;
        /** When to try again (a poll, an expiry, a retry), if {@link #waking}. */
        boolean waking;
        long wakeAt;
    }

    /** Leading {@link #term}. */
    static final class Leading implements Phase {
        final long term;
        /** The session the lease is bound to, or null for a lease with a TTL of its own. */
        final SessionKeeper.Session session;
        /** The deadline listeners see: the session's when bound, else one of its own that only this machine moves. */
        final LeaseDeadline deadline;
        /** The own lease's deadline as this machine has moved it (the handle moves when the driver performs it). */
        long deadlineNanos;
        boolean renewDue;
        long renewAt;
        long renewCall = NO_CALL;
        long renewSentAt;
        long readCall = NO_CALL;

        Leading(long term, SessionKeeper.Session session, LeaseDeadline deadline) {
            this.term = term;
            this.session = session;
            this.deadline = deadline;
            this.deadlineNanos = deadline.nanos();
        }

        long deadline() {
            return session != null ? session.deadline().nanos() : deadlineNanos;
        }
    }

    /** Closed for good. */
    static final class Closed implements Phase {
    }

    private final String group;
    private final String nodeId;
    private final ElectionConfig config;
    private final Random random;
    /** Whether leases are bound to the process's store session ({@link SessionKeeper}) instead of each having a TTL. */
    private final boolean sessionBound;

    private Phase phase = new NotStarted();
    private LeaderInfo known;
    /** The highest term this node has seen granted, denied or announced; never goes back. */
    private long highestTermSeen = Long.MIN_VALUE;
    private boolean electionOpen;
    /** The open session to bind leases to; null while there is none (and always with leases of their own). */
    private SessionKeeper.Session session;
    /** The call id of the acquire armed for the next release notice, or {@link #NO_CALL}. */
    private long armedCall = NO_CALL;
    private long calls;

    // The step being taken.
    private long now;
    private Instant wall;
    private List<LeaseAction> actions;

    LeaseMachine(String group, String nodeId, ElectionConfig config, Random random, boolean sessionBound) {
        this.group = group;
        this.nodeId = nodeId;
        this.config = config;
        this.random = random;
        this.sessionBound = sessionBound;
    }

    /** Where the election stands (for tests: the driver acts only on what {@link #step} answers). */
    Phase phase() {
        return phase;
    }

    /**
     * Takes {@code input} at monotonic time {@code nowNanos} (wall time {@code wallNow}, which only stamps events) and
     * answers what follows.
     */
    Step step(LeaseInput input, long nowNanos, Instant wallNow) {
        now = nowNanos;
        wall = wallNow;
        actions = new ArrayList<>();
        if (input instanceof LeaseInput.Start) {
            onStart();
        } else if (input instanceof LeaseInput.Tick) {
            onTick();
        } else if (input instanceof LeaseInput.AcquireReplied reply) {
            onAcquireReply(reply);
        } else if (input instanceof LeaseInput.AcquireLate late) {
            onLateAcquireReply(late);
        } else if (input instanceof LeaseInput.AcquireNotSent notSent) {
            onAcquireNotSent(notSent.call());
        } else if (input instanceof LeaseInput.AcquireFired fired) {
            onAcquireFired(fired);
        } else if (input instanceof LeaseInput.RenewReplied reply) {
            onRenewReply(reply);
        } else if (input instanceof LeaseInput.ReadReplied reply) {
            onReadReply(reply);
        } else if (input instanceof LeaseInput.ReleaseReplied reply) {
            onReleaseReply(reply);
        } else if (input instanceof LeaseInput.Notice notice) {
            onNotice(notice.notice());
        } else if (input instanceof LeaseInput.StepDown stepDown) {
            onStepDown(stepDown);
        } else if (input instanceof LeaseInput.Close close) {
            onClose(close);
        } else if (input instanceof LeaseInput.SessionOpened opened) {
            onSessionOpened(opened.session());
        } else if (input instanceof LeaseInput.SessionLost lost) {
            onSessionLost(lost.session(), lost.reason());
        } else if (input instanceof LeaseInput.HolderSessionEnded ended) {
            onHolderSessionEnded(ended.session());
        }
        List<LeaseAction> taken = actions;
        actions = null;
        return new Step(taken, wakeAt());
    }

    private OptionalLong wakeAt() {
        if (phase instanceof Following f && f.waking) {
            return OptionalLong.of(f.wakeAt);
        }
        if (phase instanceof Leading l) {
            boolean ownDeadline = l.session == null;
            if (l.renewDue && (!ownDeadline || l.renewAt - l.deadlineNanos < 0)) {
                return OptionalLong.of(l.renewAt);
            }
            return ownDeadline ? OptionalLong.of(l.deadlineNanos) : OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    private void act(LeaseAction action) {
        actions.add(action);
    }

    // ------------------------------------------------------------------ commands

    /** Starts contending: watch the lease, try to take it, then register this process. */
    private void onStart() {
        if (!(phase instanceof NotStarted)) {
            return;
        }
        phase = new Following();
        act(new LeaseAction.Started());
        act(new LeaseAction.Watch());
        // The acquire goes out before ElectionStarted is emitted, so that listeners woken by it (the event log's
        // write among them) do not compete with the first election; its reply is handled in a later step anyway.
        attempt();
        openElection();
        // Registering after the acquire keeps the registry write off the first election's path.
        act(new LeaseAction.Members(MemberChange.START, null));
    }

    /**
     * Gives up leadership if held, releasing the lease once listeners have returned, and holds off contending for
     * {@code checkInterval}; {@code done} completes when the release was answered (at once if not leading).
     */
    private void onStepDown(LeaseInput.StepDown stepDown) {
        if (phase instanceof Leading l) {
            release(l.term, l.session, LossReason.RELEASED, stepDown.fromListener(), stepDown.done());
            if (phase instanceof Following f) {
                f.holdingOff = true;
                f.holdOffUntil = now + config.checkInterval().toNanos();
            }
        } else {
            act(new LeaseAction.Complete(stepDown.done()));
        }
    }

    /**
     * Closes: a leader releases (see {@link #release}), the machine stops, and once the release went out the lease
     * watch and this process's registry entry are removed; then {@code onClosed} runs.
     */
    private void onClose(LeaseInput.Close close) {
        if (phase instanceof Closed) {
            return;
        }
        CompletableFuture<Void> released;
        if (phase instanceof Leading l) {
            released = new CompletableFuture<>();
            release(l.term, l.session, LossReason.RELEASED, close.fromListener(), released);
        } else {
            released = CompletableFuture.completedFuture(null);
        }
        boolean started = !(phase instanceof NotStarted);
        disarm();
        phase = new Closed();
        act(new LeaseAction.PublishState(NodeState.STOPPED));
        act(new LeaseAction.Closed());
        // Torn down only after the release went out: a graceful handover should not wait for our unsubscribing.
        act(new LeaseAction.TearDown(released, started, close.onClosed()));
    }

    private void onTick() {
        if (phase instanceof Following f) {
            if (f.waking && now - f.wakeAt >= 0) {
                f.waking = false;
                attempt();
            }
        } else if (phase instanceof Leading l) {
            if (l.session == null && now - l.deadlineNanos >= 0) {
                loseLeadership(LossReason.EXPIRED_LOCALLY);
            } else if (l.renewDue && now - l.renewAt >= 0) {
                l.renewDue = false;
                renew(l);
            }
        }
    }

    // ------------------------------------------------------------------ contending

    private void attempt() {
        if (!(phase instanceof Following f)) {
            return;
        }
        if (sessionBound && session == null) {
            return; // contends as soon as a session is open (onSessionOpened)
        }
        if (f.acquireCall != NO_CALL) {
            f.recheck = true;
            return;
        }
        if (f.holdingOff && now - f.holdOffUntil < 0) {
            disarm();
            wakeIn(f, f.holdOffUntil - now);
            return;
        }
        f.holdingOff = false;
        f.waking = false;
        f.acquireCall = ++calls;
        f.recheck = false;
        armedCall = NO_CALL; // the driver disarms as it sends, in one step with checking nothing was fired
        act(new LeaseAction.PublishState(NodeState.CANDIDATE));
        act(new LeaseAction.Acquire(f.acquireCall, session));
    }

    /** The acquire was not sent: a fired one is in flight instead, and its reply decides. */
    private void onAcquireNotSent(long call) {
        if (phase instanceof Following f) {
            if (f.acquireCall == call) {
                f.acquireCall = NO_CALL;
            }
            f.recheck = true;
        }
    }

    /** The acquire the notice thread sent on {@code notice}: from now on it is the acquire in flight. */
    private void onAcquireFired(LeaseInput.AcquireFired fired) {
        armedCall = NO_CALL;
        if (!(phase instanceof Following f)) {
            return; // closed meanwhile: its reply names no call in flight, and a grant is handed back
        }
        f.acquireCall = fired.call();
        f.waking = false;
        if (fired.notice().term() >= highestTermSeen) {
            learnLeader(null);
        }
        openElection();
        act(new LeaseAction.PublishState(NodeState.CANDIDATE));
    }

    private void onAcquireReply(LeaseInput.AcquireReplied reply) {
        Following f = phase instanceof Following following ? following : null;
        boolean current = f != null && f.acquireCall == reply.call();
        if (f != null && current) {
            f.acquireCall = NO_CALL;
            act(new LeaseAction.PublishState(NodeState.FOLLOWER));
        }
        SessionKeeper.Session bound = reply.session();
        if (!current) {
            if (reply.result() instanceof AcquireResult.Granted granted) {
                // Granted after we stopped wanting it: hand it straight back instead of making others wait.
                handBack(granted.term(), bound);
            }
            return;
        }
        if (sessionBound && bound != session) {
            // The session ended while the call was out: a lease bound to it is worth nothing. Free it, try again.
            if (reply.result() instanceof AcquireResult.Granted granted) {
                handBack(granted.term(), bound);
            }
            attempt();
            return;
        }
        if (reply.error() != null) {
            f.acquireFailures++;
            act(new LeaseAction.ReportError("acquire", "acquiring the lease failed", reply.error()));
            long backoff = config.retryInterval().toNanos() << Math.min(f.acquireFailures - 1, 16);
            wakeIn(f, Math.min(backoff, config.checkInterval().toNanos()) + jitter(config.expiryJitter()));
            return;
        }
        f.acquireFailures = 0;
        act(new LeaseAction.ClearProblem());
        if (reply.result() instanceof AcquireResult.Granted granted) {
            onGranted(f, granted.term(), reply.sentAt(), bound);
        } else if (reply.result() instanceof AcquireResult.Denied denied) {
            learnLeader(new LeaderInfo(denied.current().owner(), denied.current().term()));
            closeElection(false);
            if (f.recheck) {
                attempt();
            } else {
                waitFor(f, denied.current());
                armIfWaiting();
            }
        }
    }

    private void onGranted(Following f, long term, long sentAt, SessionKeeper.Session bound) {
        // A lease bound to a session lives as long as the session: its deadline is the session's.
        long deadline = bound != null ? bound.deadline().nanos() : sentAt + config.localValidity().toNanos();
        if (now - deadline >= 0) {
            log.warn("Lease for {} term {} was granted too late to be used; giving it back", group, term);
            handBack(term, bound);
            wakeIn(f, config.retryInterval().toNanos());
            return;
        }
        if (term < highestTermSeen) {
            // A grant the store has already moved on from (a later call of ours overtook this one and was granted, or
            // handed back, a newer term; or another node holds one): its lease is gone.
            log.warn("Lease for {} term {} was granted after term {} was seen; not leading it", group, term,
                    highestTermSeen);
            handBack(term, bound);
            attempt();
            return;
        }
        becomeLeader(term, sentAt, deadline, bound);
    }

    /**
     * A grant that arrived after its call timed out (a slow or paused store, a request stuck behind others). This node
     * never acted on it; hand it back so that others need not wait for it to expire (see {@link #handBack}).
     */
    private void onLateAcquireReply(LeaseInput.AcquireLate late) {
        if (late.result() instanceof AcquireResult.Granted granted
                && !(phase instanceof Leading l && l.term == granted.term())) {
            handBack(granted.term(), late.session());
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
        if (phase instanceof Leading l && l.term < term) {
            log.warn("Lease for {} was granted to this node again under term {} by a late acquire; ending term {} "
                    + "before giving it back", group, term, l.term);
            release(term, bound, LossReason.LEASE_TAKEN, false, new CompletableFuture<>());
        } else {
            act(new LeaseAction.Release(term, bound, null));
        }
    }

    // ------------------------------------------------------------------ leading

    private void becomeLeader(long term, long sentAt, long deadline, SessionKeeper.Session bound) {
        disarm();
        // Bound to a session, the leadership shares the session's deadline, which only the session keeper moves.
        Leading l = new Leading(term, bound, bound != null ? bound.deadline() : new LeaseDeadline(deadline));
        phase = l;
        act(new LeaseAction.PublishState(NodeState.LEADER));
        act(new LeaseAction.ValidUntil(term, deadline));
        act(new LeaseAction.Lead(term, l.deadline, bound));
        openElection();
        act(new LeaseAction.AnnounceLead(wall));
        learnLeader(new LeaderInfo(nodeId, term));
        closeElection(true);
        act(new LeaseAction.Members(MemberChange.LEADING, null));
        if (bound == null) {
            scheduleRenewal(l, sentAt + config.renewInterval().toNanos());
        }
    }

    private void scheduleRenewal(Leading l, long atNanos) {
        l.renewDue = true;
        l.renewAt = atNanos;
    }

    private void renew(Leading l) {
        long left = l.deadline() - now;
        if (left <= 0) {
            loseLeadership(LossReason.EXPIRED_LOCALLY);
            return;
        }
        l.renewDue = false;
        l.renewCall = ++calls;
        l.renewSentAt = now;
        act(new LeaseAction.Renew(l.renewCall, l.term, Duration.ofNanos(Math.min(config.storeTimeout().toNanos(),
                left))));
    }

    private void onRenewReply(LeaseInput.RenewReplied reply) {
        if (!(phase instanceof Leading l) || l.renewCall != reply.call()) {
            return;
        }
        l.renewCall = NO_CALL;
        if (reply.error() != null) {
            act(new LeaseAction.ReportError("renew", "renewing the lease of term " + l.term + " failed",
                    reply.error()));
            // Retry until the deadline; the deadline ends the leadership if none succeeds.
            long retryAt = now + config.retryInterval().toNanos();
            if (retryAt - l.deadlineNanos < 0) {
                scheduleRenewal(l, retryAt);
            }
            return;
        }
        if (!reply.renewed()) {
            loseLeadership(LossReason.LEASE_TAKEN);
            return;
        }
        act(new LeaseAction.ClearProblem());
        long sentAt = l.renewSentAt;
        act(new LeaseAction.Renewed(now - sentAt, l.deadlineNanos - sentAt));
        long extended = sentAt + config.localValidity().toNanos();
        if (extended - l.deadlineNanos > 0) {
            act(new LeaseAction.ValidUntil(l.term, extended));
            l.deadlineNanos = extended;
            act(new LeaseAction.Extend(l.deadline, extended));
        }
        scheduleRenewal(l, sentAt + config.renewInterval().toNanos());
    }

    /**
     * A leader bound to a session, told of a newer term: it has no renewal to ask, so it reads the lease and ends its
     * term if the lease is no longer its own.
     */
    private void verify(Leading l) {
        if (l.deadline() - now <= 0) {
            // As a renewal would: past its deadline (a paused process just woke up) the term ended on its own clock.
            loseLeadership(LossReason.EXPIRED_LOCALLY);
            return;
        }
        l.readCall = ++calls;
        act(new LeaseAction.Read(l.readCall));
    }

    private void onReadReply(LeaseInput.ReadReplied reply) {
        if (!(phase instanceof Leading l) || l.readCall != reply.call()) {
            return;
        }
        l.readCall = NO_CALL;
        if (reply.error() != null) {
            return;
        }
        Optional<Lease> lease = reply.lease();
        if (lease.isEmpty() || lease.get().term() != l.term) {
            loseLeadership(LossReason.LEASE_TAKEN);
        }
    }

    /** Ends the current term without releasing: the lease was taken or could not be renewed in time. */
    private void loseLeadership(LossReason reason) {
        long term = stopLeading().term;
        act(new LeaseAction.Emit(new ElectionEvent.LeadershipLost(wall, term, reason)));
        if (reason == LossReason.EXPIRED_LOCALLY) {
            act(new LeaseAction.ReportError("renew", "leadership of term " + term
                    + " expired locally before a renewal succeeded", null));
        }
        learnLeader(null);
        openElection();
        attempt();
    }

    /** Stops counting this node as leader, before anything is told or released. Returns the leadership given up. */
    private Leading stopLeading() {
        Leading l = (Leading) phase;
        disarm();
        phase = new Following();
        act(new LeaseAction.PublishState(NodeState.FOLLOWER));
        act(new LeaseAction.Unlead());
        act(new LeaseAction.Members(MemberChange.NOT_LEADING, null));
        return l;
    }

    /**
     * Stops leading the current term for {@code reason}, then releases the lease under {@code leaseTerm} (the current
     * term, or a newer one the store granted this node by a late acquire) once the listeners have returned: graceful,
     * the node stops acting before the lease can pass on. Past the leadership's deadline the lease is no longer ours to
     * protect, so the release goes then at the latest.
     */
    private void release(long leaseTerm, SessionKeeper.Session leaseSession, LossReason reason,
            boolean fromListener, CompletableFuture<Void> done) {
        Leading l = stopLeading();
        ElectionEvent.LeadershipLost lost = new ElectionEvent.LeadershipLost(wall, l.term, reason);
        if (fromListener) {
            // The listener that asked is itself delivering events; waiting for it would wait for ourselves.
            act(new LeaseAction.Emit(lost));
            act(new LeaseAction.Release(leaseTerm, leaseSession, done));
        } else {
            act(new LeaseAction.ReleaseAfterListeners(lost, leaseTerm, leaseSession, l.deadline(), done));
        }
        learnLeader(null);
        if (phase instanceof Following f) {
            wakeIn(f, config.checkInterval().toNanos());
        }
    }

    private void onReleaseReply(LeaseInput.ReleaseReplied reply) {
        if (reply.error() != null) {
            act(new LeaseAction.ReportError("release", "releasing the lease of term " + reply.term() + " failed",
                    reply.error()));
        }
        act(new LeaseAction.Complete(reply.done()));
    }

    // ------------------------------------------------------------------ notices

    private void onNotice(LeaseNotice notice) {
        if (phase instanceof Leading l) {
            if (!notice.owner().equals(nodeId) && notice.term() > l.term) {
                // Someone holds a newer term: find out now rather than at the next renewal.
                if (l.session != null) {
                    verify(l);
                } else {
                    renew(l);
                }
            }
            return;
        }
        if (!(phase instanceof Following f)) {
            return;
        }
        switch (notice.kind()) {
            case ACQUIRED -> {
                if (notice.owner().equals(nodeId) || notice.term() <= highestTermSeen) {
                    return;
                }
                f.holdingOff = false;
                f.holderSession = null; // a new holder: its session is learned at the next denial
                learnLeader(new LeaderInfo(notice.owner(), notice.term()));
                closeElection(false);
                if (f.acquireCall == NO_CALL) {
                    wakeAtExpiry(f, config.leaseTtl());
                    armIfWaiting();
                }
            }
            case RELEASED -> {
                if (notice.term() < highestTermSeen) {
                    return;
                }
                learnLeader(null);
                if (f.holdingOff) {
                    return;
                }
                openElection();
                if (config.releaseJitter().isZero()) {
                    attempt();
                } else {
                    wakeIn(f, jitter(config.releaseJitter()));
                }
            }
        }
    }

    /**
     * Arms the acquire for the next release notice while this node follows and waits, as {@link #onNotice} would
     * contend on it: not while an acquire is in flight, while holding off after a step-down, or with a release jitter.
     */
    private void armIfWaiting() {
        if (phase instanceof Following f && f.acquireCall == NO_CALL && !f.holdingOff
                && config.releaseJitter().isZero() && (!sessionBound || session != null)) {
            armedCall = ++calls;
            act(new LeaseAction.Arm(new ArmedAcquire.Shot(armedCall, highestTermSeen, session)));
        } else {
            disarm();
        }
    }

    private void disarm() {
        armedCall = NO_CALL;
        act(new LeaseAction.Disarm());
    }

    // ------------------------------------------------------------------ the store session (when bound to one)

    /** A session is open: contend with it. */
    private void onSessionOpened(SessionKeeper.Session opened) {
        if (phase instanceof Closed) {
            return;
        }
        session = opened;
        act(new LeaseAction.Members(MemberChange.SESSION_OPENED, opened));
        if (phase instanceof Following) {
            attempt();
        }
    }

    /** The session ended: a leadership bound to it ends with it, and contending waits for the next session. */
    private void onSessionLost(SessionKeeper.Session lost, LossReason reason) {
        if (session == lost) {
            session = null;
            disarm();
        }
        act(new LeaseAction.Members(MemberChange.SESSION_LOST, lost));
        if (phase instanceof Leading l && l.session == lost) {
            loseLeadership(reason);
        }
    }

    /** The session holding the group ended (the session keeper found it gone): contend now. */
    private void onHolderSessionEnded(String ended) {
        if (phase instanceof Following f && ended.equals(f.holderSession)) {
            f.holderSession = null;
            learnLeader(null);
            openElection();
            attempt();
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Waits for the lease that stands. One bound to another process's session is waited for through the session
     * keeper, which asks once per session for every group the process follows; this group then polls only as a
     * fallback for a lost release notice, once a lease TTL (a lost notice costs at most what a crash costs).
     */
    private void waitFor(Following f, Lease lease) {
        if (sessionBound && lease.boundToSession()) {
            f.holderSession = lease.session();
            act(new LeaseAction.AwaitHolderSession(lease.session(), lease.remaining()));
            Duration fallback = config.checkInterval().compareTo(config.leaseTtl()) > 0
                    ? config.checkInterval() : config.leaseTtl();
            wakeIn(f, fallback.toNanos() + jitter(config.electionJitter()));
        } else {
            f.holderSession = null;
            wakeAtExpiry(f, lease.remaining());
        }
    }

    private void wakeAtExpiry(Following f, Duration remaining) {
        long atExpiry = remaining.toNanos() + jitter(config.expiryJitter());
        long poll = config.checkInterval().toNanos() + jitter(config.electionJitter());
        wakeIn(f, Math.min(atExpiry, poll));
    }

    private void wakeIn(Following f, long delayNanos) {
        f.waking = true;
        f.wakeAt = now + Math.max(0, delayNanos);
    }

    private long jitter(Duration max) {
        long bound = max.toNanos();
        return bound <= 0 ? 0 : (long) (random.nextDouble() * bound);
    }

    private void learnLeader(LeaderInfo leader) {
        if (leader != null && leader.term() > highestTermSeen) {
            highestTermSeen = leader.term();
            if (armedCall != NO_CALL) {
                armIfWaiting(); // re-armed above the newer term: a release of an older one is stale
            }
        }
        if (!Objects.equals(leader, known)) {
            known = leader;
            act(new LeaseAction.PublishLeader(leader));
            act(new LeaseAction.Emit(new ElectionEvent.LeaderChanged(wall, Optional.ofNullable(leader))));
        }
    }

    private void openElection() {
        if (!electionOpen) {
            electionOpen = true;
            act(new LeaseAction.Emit(new ElectionEvent.ElectionStarted(wall)));
        }
    }

    private void closeElection(boolean leader) {
        if (electionOpen) {
            electionOpen = false;
            act(new LeaseAction.Emit(new ElectionEvent.ElectionCompleted(wall, leader, Optional.ofNullable(known))));
        }
        act(new LeaseAction.RoundResolved(leader));
    }
}
