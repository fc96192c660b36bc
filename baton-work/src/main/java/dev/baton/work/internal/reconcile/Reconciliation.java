package dev.baton.work.internal.reconcile;

import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkItem;
import dev.baton.work.plan.BalanceMode;
import dev.baton.work.plan.Move;
import dev.baton.work.plan.Plan;
import dev.baton.work.plan.PlanInput;
import dev.baton.work.plan.Planner;
import dev.baton.work.plan.Unassigned;
import dev.baton.work.plan.UnassignedReason;
import dev.baton.work.plan.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One reconciliation round as a pure function (seed 001's {@code rebalanceCameraSubscriptions}): from the desired
 * items, the recorded actual state, what each worker reports and what is in flight, to the actions that bring the
 * actual state to the plan. No I/O, no clock (the time is an input), deterministic.
 *
 * <p>Rules:
 * <ul>
 *   <li>The planner places every desired item, starting from where the record says it is (or, for an item without
 *       a record, where workers report it: a new leader adopts what its predecessor started instead of subscribing
 *       it twice). Moves become {@link ReconcileAction.Assign}, items no longer desired {@link ReconcileAction.Remove},
 *       items without room {@link ReconcileAction.Unassign}, a second placement
 *       {@link ReconcileAction.Unsubscribe}.</li>
 *   <li>An item that stays where it is recorded is checked against its worker's latest report: listed and pending
 *       -> {@link ReconcileAction.Confirm}; listed but not held by this leader's connection ->
 *       {@link ReconcileAction.Adopt}; not listed and never sent on this connection, or sent at least
 *       {@code confirmTimeout} ago and still missing from a later report -> {@link ReconcileAction.Resubscribe}.</li>
 *   <li>An item a worker reports that its record puts elsewhere, or that is not desired, is stopped there
 *       ({@link ReconcileAction.Unsubscribe}), at most once per {@code confirmTimeout} per worker and item.</li>
 *   <li>Items in flight (an action under way) are left alone; items backing off after a failure are not assigned
 *       or subscribed again before their time.</li>
 *   <li>A move off a worker that is online and runs the item (a drain, a rebalance: a planned move) is
 *       make-before-break ({@link ReconcileAction.Assign#makeBeforeBreak()}): the old copy is not stopped while the
 *       move is a {@linkplain Input#handovers() hand-over} in progress. A move off a worker that is gone is not.</li>
 *   <li>A <b>draining</b> worker may hold nothing: its items move; an item with nowhere to go stays where it
 *       is.</li>
 *   <li>A worker <b>away</b> for less than the restart grace keeps its items: the planner sees it eligible with
 *       room for exactly what it holds, so nothing moves off it for its absence and nothing new goes to it.</li>
 * </ul>
 */
final class Reconciliation {

    /**
     * Everything a round decides from.
     *
     * @param desired          the desired items by id
     * @param actual           the recorded actual state by item id
     * @param workers          every configured worker
     * @param inFlight         items with an action under way -> the worker it puts them on ({@code null}: none)
     * @param notBefore        items backing off -> the time before which they are not tried again
     * @param lastSent         items -> when {@code subscribe} was last sent for them by this leader
     * @param lastUnsubscribed {@link #key(String, String)} -> when {@code unsubscribe} was last sent
     * @param nowNanos         the time now
     * @param draining         the workers being drained
     * @param handovers        items in a planned move, not yet confirmed on their new worker -> the worker they
     *                         move off, which keeps running them meanwhile
     */
    public record Input(Map<String, WorkItem> desired, Map<String, ActualSubscription> actual,
                        List<WorkerView> workers, Map<String, String> inFlight, Map<String, Long> notBefore,
                        Map<String, Long> lastSent, Map<String, Long> lastUnsubscribed, long nowNanos,
                        Set<String> draining, Map<String, String> handovers, Map<String, Long> reportedCosts) {

        /** A round without costs reported by the workers (every item counts its weight). */
        public Input(Map<String, WorkItem> desired, Map<String, ActualSubscription> actual, List<WorkerView> workers,
                     Map<String, String> inFlight, Map<String, Long> notBefore, Map<String, Long> lastSent,
                     Map<String, Long> lastUnsubscribed, long nowNanos, Set<String> draining,
                     Map<String, String> handovers) {
            this(desired, actual, workers, inFlight, notBefore, lastSent, lastUnsubscribed, nowNanos, draining,
                    handovers, Map.of());
        }

        /** A round with nothing draining and no hand-over under way. */
        public Input(Map<String, WorkItem> desired, Map<String, ActualSubscription> actual, List<WorkerView> workers,
                     Map<String, String> inFlight, Map<String, Long> notBefore, Map<String, Long> lastSent,
                     Map<String, Long> lastUnsubscribed, long nowNanos) {
            this(desired, actual, workers, inFlight, notBefore, lastSent, lastUnsubscribed, nowNanos, Set.of(),
                    Map.of(), Map.of());
        }
    }

    private final Planner planner;
    private final long confirmTimeoutNanos;
    private final long restartGraceNanos;

    public Reconciliation(Planner planner, Duration confirmTimeout) {
        this(planner, confirmTimeout, Duration.ZERO);
    }

    public Reconciliation(Planner planner, Duration confirmTimeout, Duration restartGrace) {
        this.planner = Objects.requireNonNull(planner, "planner");
        this.confirmTimeoutNanos = confirmTimeout.toNanos();
        this.restartGraceNanos = restartGrace.toNanos();
    }

    /** Whether {@code view} is away but still within the restart grace at {@code now} (a drained one never is). */
    public boolean inGrace(WorkerView view, Set<String> draining, long now) {
        return restartGraceNanos > 0 && view.away() && !draining.contains(view.url())
                && now - view.awaySinceNanos() < restartGraceNanos;
    }

    /** When the grace of an away worker ends. */
    public long graceEndsAt(WorkerView view) {
        return view.awaySinceNanos() + restartGraceNanos;
    }

    /** The key of a (worker, item) pair in {@link Input#lastUnsubscribed()}. */
    public static String key(String worker, String item) {
        return worker + '\n' + item;
    }

    /** The text recorded as the error of an item on no worker. */
    public static String reasonText(UnassignedReason reason) {
        return switch (reason) {
            case NO_WORKERS_AVAILABLE -> "No workers available for assignment";
            case NO_CAPACITY -> "No worker has room for it";
            case ITEM_TOO_LARGE -> "Its weight exceeds every worker's capacity";
        };
    }

    /** The actions of one round, in a deterministic order. */
    public List<ReconcileAction> decide(Input in) {
        long now = in.nowNanos();
        Map<String, WorkerView> views = new HashMap<>();
        for (WorkerView view : in.workers()) {
            views.put(view.url(), view);
        }
        PlanInput.Builder builder = PlanInput.builder();
        for (WorkItem item : in.desired().values()) {
            builder.item(item.subscriptionIdentifier(), weight(in, item));
        }
        // Where things are now: the record (or the target of an action under way), and, for a desired item without
        // a record, every worker that reports it.
        Set<String> adoptable = new HashSet<>();
        Map<String, Long> held = new HashMap<>();
        for (Map.Entry<String, ActualSubscription> e : in.actual().entrySet()) {
            String item = e.getKey();
            String at = in.inFlight().containsKey(item) ? in.inFlight().get(item) : e.getValue().assignedWorkerUrl();
            if (at != null) {
                builder.assigned(item, at);
                held.merge(at, load(in, item), Long::sum);
            }
        }
        for (Map.Entry<String, String> e : in.inFlight().entrySet()) {
            if (!in.actual().containsKey(e.getKey()) && e.getValue() != null) {
                builder.assigned(e.getKey(), e.getValue());
                held.merge(e.getValue(), load(in, e.getKey()), Long::sum);
            }
        }
        for (WorkerView view : in.workers()) {
            boolean draining = in.draining().contains(view.url());
            boolean eligible = view.eligible() && !draining;
            long capacity = view.capacity();
            long holding = held.getOrDefault(view.url(), 0L);
            if (!view.eligible() && holding > 0 && inGrace(view, in.draining(), now)) {
                eligible = true; // away for less than the grace: keeps what it holds, gets nothing new
                capacity = Math.min(capacity, holding);
            }
            builder.worker(new Worker(view.url(), capacity, view.cpu(), view.memory(), eligible));
        }
        for (WorkerView view : in.workers()) {
            if (view.reported() == null) {
                continue;
            }
            for (String item : view.reported()) {
                if (in.desired().containsKey(item) && !in.actual().containsKey(item)
                        && !in.inFlight().containsKey(item)) {
                    builder.assigned(item, view.url());
                    adoptable.add(item);
                }
            }
        }
        Plan plan = planner.plan(builder.build());

        Map<String, UnassignedReason> reasons = new HashMap<>();
        for (Unassigned u : plan.unassigned()) {
            reasons.put(u.item(), u.reason());
        }
        List<ReconcileAction> actions = new ArrayList<>();
        Set<String> moved = new HashSet<>();
        Set<String> stopping = new HashSet<>();
        for (Move move : plan.moves()) {
            String item = move.item();
            moved.add(item);
            if (in.inFlight().containsKey(item)) {
                continue;
            }
            ActualSubscription record = in.actual().get(item);
            boolean desired = in.desired().containsKey(item);
            boolean recordedThere = record != null && move.from() != null
                    && move.from().equals(record.assignedWorkerUrl());
            boolean offDraining = move.from() != null && in.draining().contains(move.from());
            WorkerView fromView = move.from() == null ? null : views.get(move.from());
            // A planned move (a drain, a rebalance) off a worker that is online and runs the item: make before break.
            boolean stillRunsThere = fromView != null && fromView.eligible() && fromView.reported() != null
                    && fromView.reported().contains(item);
            if (move.to() != null) {
                if (!backingOff(in, item, now)) {
                    actions.add(new ReconcileAction.Assign(item, move.from(), move.to(), desired && stillRunsThere));
                }
            } else if (desired && recordedThere && offDraining) {
                continue; // nowhere to go: it keeps running on the draining worker rather than nowhere
            } else if (!desired) {
                actions.add(recordedThere || move.from() == null
                        ? new ReconcileAction.Remove(item, move.from())
                        : new ReconcileAction.Unsubscribe(item, move.from()));
                stopping.add(key(move.from(), item));
            } else if (recordedThere && plan.workerOf(item).isEmpty()) {
                actions.add(new ReconcileAction.Unassign(item, move.from(),
                        reasons.getOrDefault(item, UnassignedReason.NO_WORKERS_AVAILABLE)));
                stopping.add(key(move.from(), item));
            } else {
                actions.add(new ReconcileAction.Unsubscribe(item, move.from()));
                stopping.add(key(move.from(), item));
            }
        }
        for (Unassigned u : plan.unassigned()) {
            String item = u.item();
            if (moved.contains(item) || in.inFlight().containsKey(item)) {
                continue;
            }
            ActualSubscription record = in.actual().get(item);
            String reason = reasonText(u.reason());
            if (record == null || record.assignedWorkerUrl() != null
                    || record.status() != ActualSubscription.Status.FAILED || !reason.equals(record.error())) {
                actions.add(new ReconcileAction.Unassign(item, null, u.reason()));
            }
        }
        // Records of items no longer desired and on no worker: the planner never saw them.
        List<String> orphans = new ArrayList<>();
        for (Map.Entry<String, ActualSubscription> e : in.actual().entrySet()) {
            if (!in.desired().containsKey(e.getKey()) && e.getValue().assignedWorkerUrl() == null
                    && !in.inFlight().containsKey(e.getKey())) {
                orphans.add(e.getKey());
            }
        }
        orphans.stream().sorted().forEach(item -> actions.add(new ReconcileAction.Remove(item, null)));
        // Items staying where they are: does their worker run them?
        for (Map.Entry<String, String> e : plan.assignment().entrySet()) {
            String item = e.getKey();
            if (moved.contains(item) || in.inFlight().containsKey(item)) {
                continue;
            }
            WorkerView view = views.get(e.getValue());
            if (view == null || view.reported() == null) {
                continue;
            }
            ActualSubscription record = in.actual().get(item);
            if (record == null) {
                if (adoptable.contains(item)) {
                    actions.add(new ReconcileAction.Adopt(item, view.url(), true));
                }
                continue;
            }
            if (view.reported().contains(item)) {
                if (record.status() != ActualSubscription.Status.ACTIVE) {
                    actions.add(new ReconcileAction.Confirm(item, view.url()));
                } else if (!view.held().contains(item)) {
                    actions.add(new ReconcileAction.Adopt(item, view.url(), false));
                }
            } else if (!view.held().contains(item)) {
                actions.add(new ReconcileAction.Resubscribe(item, view.url(), false));
            } else {
                long since = Math.max(in.lastSent().getOrDefault(item, Long.MIN_VALUE), view.openedAtNanos());
                if (now - since >= confirmTimeoutNanos && view.reportAtNanos() - since > 0
                        && !backingOff(in, item, now)) {
                    actions.add(new ReconcileAction.Resubscribe(item, view.url(), true));
                }
            }
        }
        // What workers run but should not.
        for (WorkerView view : in.workers()) {
            if (view.reported() == null) {
                continue;
            }
            for (String item : view.reported().stream().sorted().toList()) {
                if (in.inFlight().containsKey(item) || adoptable.contains(item)
                        || stopping.contains(key(view.url(), item)) || view.url().equals(in.handovers().get(item))) {
                    continue;
                }
                ActualSubscription record = in.actual().get(item);
                if (record != null && view.url().equals(record.assignedWorkerUrl())) {
                    continue;
                }
                Long last = in.lastUnsubscribed().get(key(view.url(), item));
                if (last == null || now - last >= confirmTimeoutNanos) {
                    actions.add(new ReconcileAction.Unsubscribe(item, view.url()));
                }
            }
        }
        return actions;
    }

    /** What one item counts for on its worker: one in count mode, its weight in weighted and load mode. */
    private long load(Input in, String item) {
        if (planner.config().mode() == BalanceMode.COUNT) {
            return 1;
        }
        WorkItem desired = in.desired().get(item);
        return desired == null ? 1 : weight(in, desired);
    }

    /** An item's weight for the planner: in load mode the cost its worker last reported, else its own weight. */
    private long weight(Input in, WorkItem item) {
        if (planner.config().mode() == BalanceMode.LOAD) {
            Long reported = in.reportedCosts().get(item.subscriptionIdentifier());
            if (reported != null) {
                return reported;
            }
        }
        return item.effectiveWeight();
    }

    private static boolean backingOff(Input in, String item, long now) {
        Long notBefore = in.notBefore().get(item);
        return notBefore != null && notBefore - now > 0;
    }
}
