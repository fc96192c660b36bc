package dev.baton.work.internal.cluster;

import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.Membership;
import dev.baton.core.time.Scheduler;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.internal.reconcile.ClusterStore;
import dev.baton.work.internal.reconcile.LeaderCounters;
import dev.baton.work.internal.reconcile.LeaderRole;
import dev.baton.work.internal.reconcile.LeaderThreads;
import dev.baton.work.internal.reconcile.LocalOutput;
import dev.baton.work.internal.reconcile.UserHooks;
import dev.baton.work.internal.reconcile.WorkerFleet;
import dev.baton.work.internal.route.BusMessage;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the election's events into this process's {@link LeaderRole}s: one per term it leads, started when the
 * election says it leads and stopped, on the election's own thread, the moment it says the term is lost, so that
 * nothing is written or sent after the lease can pass on. A role of a lost term keeps only what it needs to drain
 * the results it routed.
 */
final class LeaderSwitch {

    private static final Logger log = LoggerFactory.getLogger(LeaderSwitch.class);

    private final ClusterStore shared;
    private final WorkClusterConfig config;
    private final Membership membership;
    private final LeaderThreads threads;
    private final WorkerFleet fleet;
    private final UserHooks hooks;
    private final LocalOutput local;
    private final Scheduler scheduler;
    private final boolean waitForStop;
    private final BooleanSupplier started;
    private final Runnable leaderChanged;

    private volatile LeaderRole role;
    private LeaderRole previousRole;
    private volatile long lostUpTo = Long.MIN_VALUE;

    /**
     * @param waitForStop   whether the election's thread waits for a lost term's connections to close (only with
     *                      the cluster's own scheduler)
     * @param started       whether the cluster is started (a role starts only then)
     * @param leaderChanged run on the scheduler when this process or the group gets a new leader
     */
    LeaderSwitch(ClusterStore shared, WorkClusterConfig config, Membership membership, LeaderThreads threads,
                 WorkerFleet fleet, UserHooks hooks, LocalOutput local, boolean waitForStop, BooleanSupplier started,
                 Runnable leaderChanged) {
        this.shared = shared;
        this.config = config;
        this.membership = membership;
        this.threads = threads;
        this.fleet = fleet;
        this.hooks = hooks;
        this.local = local;
        this.scheduler = threads.scheduler();
        this.waitForStop = waitForStop;
        this.started = started;
        this.leaderChanged = leaderChanged;
    }

    /** This process's role now, if it leads (it may be deactivated already). */
    LeaderRole role() {
        return role;
    }

    /** Whether this process leads the work cluster now. */
    boolean isLeading() {
        LeaderRole current = role;
        return current != null && current.isActive();
    }

    /** The counters of the current role; on the scheduler. */
    LeaderCounters counters() {
        LeaderRole current = role;
        return current == null ? null : current.counters();
    }

    /** An election event, on the election's thread. */
    void onElectionEvent(ElectionEvent event) {
        if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
            scheduler.execute(() -> start(acquired.leadership()));
        } else if (event instanceof ElectionEvent.LeadershipLost lost) {
            stopLeading(lost.term());
        } else if (event instanceof ElectionEvent.LeaderChanged) {
            scheduler.execute(leaderChanged);
        } else if (event instanceof ElectionEvent.MemberJoined || event instanceof ElectionEvent.MemberRemoved) {
            scheduler.execute(() -> {
                LeaderRole current = role;
                if (current != null) {
                    current.membersChanged();
                }
            });
        }
        // Every other event (election started or completed, member state changed, errors) does not concern the
        // work cluster: leadership reaches it only through acquired and lost.
    }

    /** A results acknowledgement from a process: for the current role and the one before, which may be draining. */
    void acked(BusMessage.Ack ack) {
        LeaderRole current = role;
        if (current != null) {
            current.acked(ack.from(), ack.stream(), ack.upTo());
        }
        if (previousRole != null) {
            previousRole.acked(ack.from(), ack.stream(), ack.upTo());
        }
    }

    /** Starts leading {@code leadership}'s term unless it is over, lost, or already led; on the scheduler. */
    void start(Leadership leadership) {
        if (!started.getAsBoolean() || leadership.term() <= lostUpTo || !leadership.isValid()) {
            return;
        }
        LeaderRole current = role;
        if (current != null) {
            if (current.term() == leadership.term()) {
                return;
            }
            stop(current, "a newer term " + leadership.term() + " began");
        }
        LeaderRole next = new LeaderRole(shared, config, membership, threads, fleet, hooks, local, leadership,
                stopped -> {
                    if (role == stopped) {
                        previousRole = stopped;
                        role = null;
                    }
                });
        role = next;
        next.start();
        leaderChanged.run();
    }

    /** Stops acting at once; any thread. */
    void deactivate() {
        LeaderRole current = role;
        if (current != null) {
            current.deactivate();
        }
    }

    /** Stops the current role, if any; on the scheduler. */
    void stop(String reason) {
        LeaderRole current = role;
        if (current != null) {
            stop(current, reason);
        }
    }

    /**
     * Leadership of {@code term} is over: stop at once, on the election's event thread, before the lease can pass on.
     * Nothing is written or sent after {@code deactivate}; with its own scheduler the cluster also waits (up to
     * {@code stopTimeout}) until the worker connections are closed.
     */
    private void stopLeading(long term) {
        lostUpTo = Math.max(lostUpTo, term);
        LeaderRole current = role;
        if (current == null || current.term() > term) {
            return;
        }
        current.deactivate();
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        scheduler.execute(() -> {
            stop(current, "leadership of term " + term + " lost");
            scheduler.execute(() -> stopped.complete(null));
        });
        if (waitForStop) {
            await(stopped, config.stopTimeout());
        }
    }

    private void stop(LeaderRole r, String reason) {
        r.stop(reason);
        if (role == r) {
            previousRole = r;
            role = null;
        }
    }

    /** Waits for {@code future} up to {@code timeout}; a timeout is logged, an interrupt kept. */
    static void await(CompletableFuture<?> future, Duration timeout) {
        try {
            future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("the work cluster did not stop within {} ms", timeout.toMillis());
        }
    }
}
