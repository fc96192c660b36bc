package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.spi.FailureLog;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.SessionStore;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.core.time.Scheduler.Cancellable;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one store session of a process (per store, node and timings), shared by every lease election bound to it: it
 * opens the session, keeps it alive with one call per renew interval, and holds its local deadline, the one every
 * leadership bound to it shares (DESIGN §3's rule 1, applied once per process instead of once per group). When the
 * session ends on the store or its deadline passes, every holder hears it at once, and a new session is opened.
 *
 * <p>It also answers, for the leaders that track their group's members, whether the members' sessions still live:
 * one {@link SessionStore#remaining} call per check interval for all of them, instead of a listing per group.
 *
 * <p>All state is confined to its scheduler. Holders are told through their own executors (their elections'
 * schedulers), so no holder's state is touched from here.
 */
final class SessionKeeper {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    /** A lease election bound to the session. Every call comes through the executor it attached with. */
    interface Holder {

        /** A session is open (the first one, or one after the last ended): contend and join with it. */
        void sessionOpened(Session session);

        /** {@code session} has ended for {@code reason}: every leadership bound to it has ended too. */
        void sessionLost(Session session, LossReason reason);

        /** Some of the member sessions this holder asked about have ended. */
        void membersEnded(Set<String> sessions);

        /** The session holding this holder's group, which it asked to wait for ({@link #awaitEnd}), has ended. */
        void holderEnded(String session);

        /** Keeping the session failed: the holder's status names {@code what}. */
        void sessionTrouble(String what, Throwable cause);

        /** The session's calls succeed again after {@link #sessionTrouble}. */
        void sessionRecovered();

        /** The store answered one of the session's calls: the holder's link to the store is alive. */
        void storeReplied();

        /**
         * A keep-alive sent {@code latencyNanos} ago succeeded and {@code session}'s deadline is about to move to
         * {@code deadlineNanos} ({@code marginNanos} was left before it when the keep-alive was sent). Called on the
         * keeper's thread, before the deadline moves, so that a leader bound to the session reports its new validity
         * first (see {@link ElectionMetrics#validUntil}); it must be quick and thread-safe.
         */
        void keptAlive(Session session, long latencyNanos, long marginNanos, long deadlineNanos);
    }

    /**
     * One incarnation of the session: its id on the store and its local deadline, which the keeper alone moves and
     * which every leadership bound to it reads.
     */
    record Session(String id, LeaseDeadline deadline, long incarnation) {
    }

    private final SessionStore store;
    private final NodeInfo self;
    private final ElectionConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final TimedCalls calls;
    /** Reports an outage in a bounded number of lines, however many groups the session holds. */
    private final StoreLink link;
    private final Map<Holder, Executor> holders = new LinkedHashMap<>();
    private final Map<Holder, Set<String>> memberWatches = new HashMap<>();
    /** Followers waiting for another process's session to end, by that session: one check per session, not group. */
    private final Map<String, HolderWait> holderWaits = new HashMap<>();

    /** The followers waiting for one session, and when to ask the store about it next. */
    private static final class HolderWait {
        final Set<Holder> waiters = new HashSet<>();
        long checkAt;
        Cancellable timer = Cancellable.NONE;
    }

    private Session session;
    private long incarnations;
    private boolean opening;
    private boolean shutDown;
    private int openFailures;
    private Cancellable keepAliveTimer = Cancellable.NONE;
    private Cancellable deadlineTimer = Cancellable.NONE;
    private Cancellable memberTimer = Cancellable.NONE;
    private boolean memberCheckInFlight;
    /** Whether the holders were last told of trouble, so that they hear of the recovery once. */
    private boolean troubled;

    SessionKeeper(SessionStore store, NodeInfo self, ElectionConfig config, Clock clock, Scheduler scheduler) {
        this.store = store;
        this.self = self;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.link = new StoreLink(clock, config.storeContactLimit(),
                new FailureLog("[session of " + self.id() + "] ", "store", clock, FailureLog.DEFAULT_INTERVAL,
                        FailureLog.Lines.of(log)));
        this.calls = new TimedCalls(scheduler, clock, ElectionMetrics.NONE, link);
    }

    // ------------------------------------------------------------------ holders (any thread)

    /** Binds {@code holder}; it hears of the open session at once, or when the session opens. */
    void attach(Holder holder, Executor executor) {
        scheduler.execute(() -> {
            if (shutDown) {
                return;
            }
            holders.put(holder, executor);
            if (session != null) {
                Session current = session;
                executor.execute(() -> holder.sessionOpened(current));
            } else {
                open();
            }
        });
    }

    /** Unbinds {@code holder}: it hears nothing more. */
    void detach(Holder holder) {
        scheduler.execute(() -> {
            holders.remove(holder);
            memberWatches.remove(holder);
            holderWaits.values().forEach(wait -> wait.waiters.remove(holder));
        });
    }

    /** Tells {@code holder} when any of {@code sessions} (its group's members) has ended; replaces its last set. */
    void watchMembers(Holder holder, Set<String> sessions) {
        Set<String> copy = Set.copyOf(sessions);
        scheduler.execute(() -> {
            if (!holders.containsKey(holder)) {
                return;
            }
            if (copy.isEmpty()) {
                memberWatches.remove(holder);
            } else {
                memberWatches.put(holder, copy);
                if (memberTimer == Cancellable.NONE && !memberCheckInFlight) {
                    scheduleMemberCheck();
                }
            }
        });
    }

    /**
     * Tells {@code holder} when {@code session} (the one holding its group) has ended: the keeper asks the store once
     * for each session followers wait on, at its expiry ({@code remaining} from now, as the store last said), so a
     * process following a thousand groups of one crashed process makes one call, then contends for all of them.
     */
    void awaitEnd(Holder holder, String session, Duration remaining) {
        long at = clock.nanoTime() + remaining.toNanos() + config.expiryJitter().toNanos();
        scheduler.execute(() -> {
            if (!holders.containsKey(holder)) {
                return;
            }
            HolderWait wait = holderWaits.computeIfAbsent(session, s -> new HolderWait());
            wait.waiters.add(holder);
            if (wait.timer == Cancellable.NONE || at - wait.checkAt < 0) {
                scheduleHolderCheck(session, wait, at);
            }
        });
    }

    private void scheduleHolderCheck(String session, HolderWait wait, long at) {
        wait.timer.cancel();
        wait.checkAt = at;
        wait.timer = scheduler.schedule(Duration.ofNanos(Math.max(0, at - clock.nanoTime())),
                () -> checkHolder(session, wait));
    }

    private void checkHolder(String session, HolderWait wait) {
        if (holderWaits.get(session) != wait || shutDown) {
            return;
        }
        calls.call("check a holder's session", config.storeTimeout(), () -> store.remaining(Set.of(session)),
                (alive, error) -> {
                    if (holderWaits.get(session) != wait || shutDown) {
                        return;
                    }
                    if (error != null) {
                        scheduleHolderCheck(session, wait, clock.nanoTime() + config.retryInterval().toNanos());
                        return;
                    }
                    replied();
                    Duration left = alive.get(session);
                    if (left != null) {
                        scheduleHolderCheck(session, wait,
                                clock.nanoTime() + left.toNanos() + config.expiryJitter().toNanos());
                        return;
                    }
                    holderWaits.remove(session);
                    for (Holder waiter : wait.waiters) {
                        Executor executor = holders.get(waiter);
                        if (executor != null) {
                            executor.execute(() -> waiter.holderEnded(session));
                        }
                    }
                });
    }

    /** The last holder left: close the session on the store (its leases were released by their elections). */
    void shutDown() {
        scheduler.execute(() -> {
            shutDown = true;
            holders.clear();
            memberWatches.clear();
            keepAliveTimer.cancel();
            deadlineTimer.cancel();
            memberTimer.cancel();
            holderWaits.values().forEach(wait -> wait.timer.cancel());
            holderWaits.clear();
            Session last = session;
            session = null;
            if (last != null) {
                closeQuietly(last.id());
            }
        });
    }

    // ------------------------------------------------------------------ the session

    private void open() {
        if (opening || shutDown || session != null) {
            return;
        }
        opening = true;
        long sentAt = clock.nanoTime();
        calls.call("open session", config.storeTimeout(), () -> store.open(self, config.leaseTtl()),
                (id, error) -> onOpened(sentAt, id, error), late -> onLateOpen(sentAt, late));
    }

    private void onOpened(long sentAt, String id, Throwable error) {
        opening = false;
        if (shutDown || session != null) {
            // Shut down meanwhile, or a late answer to an earlier open was taken: this session is not needed.
            if (id != null) {
                closeQuietly(id);
            }
            return;
        }
        if (error != null) {
            openFailures++;
            trouble("acquire", "opening the store session failed", error);
            long backoff = config.retryInterval().toNanos() << Math.min(openFailures - 1, 16);
            scheduler.schedule(Duration.ofNanos(Math.min(backoff, config.checkInterval().toNanos())), this::open);
            return;
        }
        install(sentAt, id);
    }

    /**
     * An open that timed out was answered after all (a slow store: on etcd an open is a lease grant and a write). The
     * session is as good as its send time allows, so it is used if none is open yet, rather than left to expire on
     * the store while the next open queues behind it; otherwise it is closed at once, so it never shows as a member.
     */
    private void onLateOpen(long sentAt, String id) {
        if (shutDown || session != null) {
            closeQuietly(id);
            return;
        }
        install(sentAt, id);
    }

    private void install(long sentAt, String id) {
        openFailures = 0;
        long deadline = sentAt + config.localValidity().toNanos();
        if (clock.nanoTime() - deadline >= 0) {
            closeQuietly(id);
            open();
            return;
        }
        session = new Session(id, new LeaseDeadline(deadline), ++incarnations);
        Session opened = session;
        replied();
        holders.forEach((holder, executor) -> executor.execute(() -> holder.sessionOpened(opened)));
        scheduleKeepAlive(sentAt + config.renewInterval().toNanos());
        armDeadline();
    }

    private void scheduleKeepAlive(long atNanos) {
        keepAliveTimer.cancel();
        long incarnation = session.incarnation();
        keepAliveTimer = scheduler.schedule(Duration.ofNanos(Math.max(0, atNanos - clock.nanoTime())),
                () -> keepAlive(incarnation));
    }

    private void keepAlive(long incarnation) {
        if (session == null || session.incarnation() != incarnation) {
            return;
        }
        long sentAt = clock.nanoTime();
        long left = session.deadline().nanos() - sentAt;
        if (left <= 0) {
            end(LossReason.EXPIRED_LOCALLY);
            return;
        }
        Duration timeout = Duration.ofNanos(Math.min(config.storeTimeout().toNanos(), left));
        String id = session.id();
        calls.call("keep session alive", timeout, () -> store.keepAlive(id, config.leaseTtl()),
                (alive, error) -> onKeptAlive(incarnation, sentAt, alive, error));
    }

    private void onKeptAlive(long incarnation, long sentAt, Boolean alive, Throwable error) {
        if (session == null || session.incarnation() != incarnation) {
            return;
        }
        if (error != null) {
            trouble("renew", "keeping the store session alive failed", error);
            long retryAt = clock.nanoTime() + config.retryInterval().toNanos();
            if (retryAt - session.deadline().nanos() < 0) {
                scheduleKeepAlive(retryAt);
            }
            return;
        }
        replied();
        if (!alive) {
            log.warn("The store session of {} ended on the store; every group it held is lost", self.id());
            // Past its deadline (a paused process that just woke up) the session ended on this process's clock first.
            end(clock.nanoTime() - session.deadline().nanos() >= 0 ? LossReason.EXPIRED_LOCALLY
                    : LossReason.LEASE_TAKEN);
            return;
        }
        long extended = sentAt + config.localValidity().toNanos();
        long now = clock.nanoTime();
        Session kept = session;
        holders.keySet().forEach(holder -> holder.keptAlive(kept, now - sentAt, kept.deadline().nanos() - sentAt,
                extended));
        kept.deadline().extendTo(extended);
        armDeadline();
        scheduleKeepAlive(sentAt + config.renewInterval().toNanos());
    }

    private void armDeadline() {
        deadlineTimer.cancel();
        long incarnation = session.incarnation();
        deadlineTimer = scheduler.schedule(
                Duration.ofNanos(Math.max(0, session.deadline().nanos() - clock.nanoTime())), () -> {
                    if (session == null || session.incarnation() != incarnation) {
                        return;
                    }
                    if (clock.nanoTime() - session.deadline().nanos() >= 0) {
                        end(LossReason.EXPIRED_LOCALLY);
                    } else {
                        armDeadline();
                    }
                });
    }

    /** The session is over for this process: every holder loses what it held, and a new session opens. */
    private void end(LossReason reason) {
        Session ended = session;
        session = null;
        ended.deadline().cutTo(clock.nanoTime());
        keepAliveTimer.cancel();
        deadlineTimer.cancel();
        holders.forEach((holder, executor) -> executor.execute(() -> holder.sessionLost(ended, reason)));
        if (reason == LossReason.EXPIRED_LOCALLY) {
            // It may still live on the store (this process could not reach it): end it there if we can, so that
            // its groups pass on now rather than when it expires.
            closeQuietly(ended.id());
        }
        open();
    }

    private void closeQuietly(String id) {
        calls.call("close session", config.storeTimeout(), () -> store.close(id), (closed, error) -> {
        });
    }

    private void replied() {
        holders.keySet().forEach(Holder::storeReplied);
        if (troubled) {
            troubled = false;
            holders.forEach((holder, executor) -> executor.execute(holder::sessionRecovered));
        }
    }

    /** Every holder reports the failure as its own (its status names the problem), on its own thread. */
    private void trouble(String kind, String what, Throwable error) {
        troubled = true;
        Throwable cause = TimedCalls.unwrap(error);
        link.failed(kind, what + ": " + cause);
        holders.forEach((holder, executor) -> executor.execute(() -> holder.sessionTrouble(what, cause)));
    }

    // ------------------------------------------------------------------ members' sessions

    private void scheduleMemberCheck() {
        memberTimer = scheduler.schedule(config.checkInterval(), this::checkMembers);
    }

    private void checkMembers() {
        memberTimer = Cancellable.NONE;
        if (memberWatches.isEmpty() || shutDown) {
            return;
        }
        Set<String> asked = new HashSet<>();
        memberWatches.values().forEach(asked::addAll);
        memberCheckInFlight = true;
        calls.call("check members' sessions", config.storeTimeout(), () -> store.remaining(asked),
                (alive, error) -> {
                    memberCheckInFlight = false;
                    if (error == null) {
                        replied();
                        memberWatches.forEach((holder, watched) -> {
                            Set<String> ended = new HashSet<>(watched);
                            ended.removeAll(alive.keySet());
                            ended.retainAll(asked);
                            if (!ended.isEmpty()) {
                                holders.get(holder).execute(() -> holder.membersEnded(ended));
                            }
                        });
                    }
                    if (!memberWatches.isEmpty() && !shutDown) {
                        scheduleMemberCheck();
                    }
                });
    }
}
