package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.NodeState;
import dev.baton.core.StoreContact;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says why a node has no leader: while it waits, a {@code waiting-for-leader} line with the reason, first after
 * {@link Pacing#firstAfter()} and then every {@link Pacing#every()} while the wait lasts, so that a node that cannot
 * elect does not sit there silently (its {@code /cluster/status} says the same, but nobody looks there first).
 *
 * <p>A node waits when it does not lead and either knows no leader or cannot vouch for the one it knows (its store
 * has been silent for too long). The reason is the store's silence, the backend's own account where it has one (the
 * quorum protocol's "heard from 0 of the 2 other nodes needed"), or on a store the lease that is in the way, read from
 * the store with its holder, term and remaining time.
 *
 * <p>Runs on its own daemon thread, checking every {@link Pacing#checkEvery()}; {@link #close()} stops it.
 */
final class LeaderWaitLines implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderWaitLines.class);

    /**
     * When the lines come.
     *
     * @param checkEvery how often the node looks
     * @param firstAfter how long a wait lasts before the first line
     * @param every      the least time between two lines of one wait
     */
    record Pacing(Duration checkEvery, Duration firstAfter, Duration every) {

        /** The default profile's: a line after 5 s without a leader, then every 15 s. */
        static final Pacing DEFAULT = new Pacing(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15));

        /** The fast profile's: after 1 s, then every 10 s. */
        static final Pacing FAST = new Pacing(Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(10));

        /** The pacing for a {@code --profile} value. */
        static Pacing of(String profile) {
            return profile != null && profile.strip().toLowerCase(Locale.ROOT).equals("fast") ? FAST : DEFAULT;
        }
    }

    /** The pure rule of when to print: fed the monotonic time and whether the node waits, says whether to print. */
    static final class Schedule {
        private final long firstAfter;
        private final long every;
        private boolean waiting;
        private long since;
        private boolean printed;
        private long printedAt;

        Schedule(Pacing pacing) {
            this.firstAfter = pacing.firstAfter().toNanos();
            this.every = pacing.every().toNanos();
        }

        /** Whether to print a line now; a check that does not wait ends the current wait. */
        boolean admit(long nowNanos, boolean waitingNow) {
            if (!waitingNow) {
                waiting = false;
                printed = false;
                return false;
            }
            if (!waiting) {
                waiting = true;
                since = nowNanos;
            }
            if (nowNanos - since < firstAfter || (printed && nowNanos - printedAt < every)) {
                return false;
            }
            printed = true;
            printedAt = nowNanos;
            return true;
        }

        /** How long the current wait has lasted. */
        Duration waited(long nowNanos) {
            return waiting ? Duration.ofNanos(nowNanos - since) : Duration.ZERO;
        }
    }

    private final Election election;
    private final Optional<CoordinationStore> store;
    private final Duration callTimeout;
    private final Clock clock;
    private final EventJson json;
    private final JsonLines lines;
    private final Pacing pacing;
    private final Schedule schedule;
    private final ScheduledExecutorService timer;

    LeaderWaitLines(Election election, Optional<CoordinationStore> store, Duration callTimeout, Clock clock,
            EventJson json, JsonLines lines, Pacing pacing) {
        this.election = election;
        this.store = store;
        this.callTimeout = callTimeout;
        this.clock = clock;
        this.json = json;
        this.lines = lines;
        this.pacing = pacing;
        this.schedule = new Schedule(pacing);
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "baton-node-leader-wait");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts looking, with the election. */
    void start() {
        long period = pacing.checkEvery().toNanos();
        timer.scheduleWithFixedDelay(this::check, period, period, TimeUnit.NANOSECONDS);
    }

    private void check() {
        try {
            long now = clock.nanoTime();
            Optional<StoreContact> silent = election.storeContact().filter(contact -> !contact.reachable());
            boolean waiting = !election.isLeader() && (election.leader().isEmpty() || silent.isPresent());
            if (schedule.admit(now, waiting)) {
                lines.write(json.waitingForLeader(reason(silent), schedule.waited(now), clock.instant()));
            }
        } catch (RuntimeException e) {
            log.debug("Could not tell why there is no leader", e);
        }
    }

    /** Why this node has no leader, as one line for people. */
    private String reason(Optional<StoreContact> silent) {
        if (silent.isPresent()) {
            return "the store is unreachable: this node " + silent.get().describe()
                    + election.problem().map(problem -> " (" + problem + ")").orElse("");
        }
        Optional<String> problem = election.problem();
        if (problem.isEmpty() && store.isPresent()) {
            return leaseInTheWay();
        }
        return problem.orElse(election.state() == NodeState.CANDIDATE
                ? "no leader yet: an election is under way (this node is a candidate)"
                : "no leader heard of yet; this node is " + election.state().label());
    }

    /** The lease that keeps this node from leading, as the store tells. */
    private String leaseInTheWay() {
        Optional<Lease> held;
        try {
            held = store.get().leases().read(election.group()).get(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while reading the lease";
        } catch (ExecutionException | TimeoutException e) {
            return "the store did not answer a read of the lease: "
                    + BatonCli.oneLine(String.valueOf(e instanceof ExecutionException ? e.getCause() : e));
        }
        if (held.isEmpty()) {
            return "no lease is held; this node is contending for it";
        }
        Lease lease = held.get();
        return "waiting for the lease held by " + lease.owner() + " in term " + lease.term() + " to expire in "
                + StoreContact.seconds(lease.remaining()) + " s (at "
                + EventJson.timestamp(clock.instant().plus(lease.remaining())) + ")";
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
