package dev.baton.work.internal.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkItem;
import dev.baton.work.plan.BalanceMode;
import dev.baton.work.plan.Planner;
import dev.baton.work.plan.PlannerConfig;
import dev.baton.work.plan.UnassignedReason;
import dev.baton.work.plan.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One reconciliation round, as a pure function: what it decides from the records, the reports and the plan. */
class ReconciliationTest {

    private static final long SECOND = 1_000_000_000L;
    private static final String W1 = "ws://w1";
    private static final String W2 = "ws://w2";

    private final Reconciliation logic = new Reconciliation(Planner.defaults(), Duration.ofSeconds(10),
            Duration.ofSeconds(30));
    private final Map<String, WorkItem> desired = new LinkedHashMap<>();
    private final Map<String, ActualSubscription> actual = new HashMap<>();
    private final List<WorkerView> workers = new ArrayList<>();
    private final Map<String, String> inFlight = new HashMap<>();
    private final Map<String, Long> notBefore = new HashMap<>();
    private final Map<String, Long> lastSent = new HashMap<>();
    private final Map<String, Long> lastUnsubscribed = new HashMap<>();
    private final Set<String> draining = new java.util.HashSet<>();
    private final Map<String, String> handovers = new HashMap<>();
    private long now = 100 * SECOND;

    private void want(String... ids) {
        for (String id : ids) {
            desired.put(id, WorkItem.builder(id).rtspUrl("rtsp://c/" + id).model(1, "m").modelUrl("http://m/x")
                    .build());
        }
    }

    private void recorded(String id, String worker, ActualSubscription.Status status) {
        actual.put(id, new ActualSubscription(id, worker, "http://m/x", status, Instant.EPOCH, Instant.EPOCH, null,
                0));
    }

    private void worker(String url, boolean online, Set<String> reported, Set<String> held) {
        workers.add(new WorkerView(url, online, Worker.UNLIMITED, 0, 0, reported, now - SECOND, 0, held, !online,
                now - 60 * SECOND));
    }

    /** A worker that went away {@code ago} before now. */
    private void away(String url, long ago, Set<String> held) {
        workers.add(new WorkerView(url, false, Worker.UNLIMITED, 0, 0, null, now - ago, 0, held, true, now - ago));
    }

    private List<ReconcileAction> decide() {
        return logic.decide(new Reconciliation.Input(desired, actual, workers, inFlight, notBefore, lastSent,
                lastUnsubscribed, now, draining, handovers));
    }

    @Test
    void aWorkerAwayForLessThanTheGraceKeepsItsItemsAndGetsNothingNew() {
        want("a;1", "b;2", "new;3");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        recorded("b;2", W1, ActualSubscription.Status.ACTIVE);
        away(W1, 5 * SECOND, Set.of("a;1", "b;2"));
        worker(W2, true, Set.of(), Set.of());

        assertThat(decide()).containsExactly(new ReconcileAction.Assign("new;3", null, W2));
        assertThat(logic.inGrace(workers.get(0), draining, now)).isTrue();
        assertThat(logic.graceEndsAt(workers.get(0))).isEqualTo(now + 25 * SECOND);
    }

    @Test
    void afterTheGraceTheAwayWorkersItemsMove() {
        want("a;1");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        away(W1, 30 * SECOND, Set.of("a;1"));
        worker(W2, true, Set.of(), Set.of());

        assertThat(decide()).containsExactly(new ReconcileAction.Assign("a;1", W1, W2));
    }

    @Test
    void aDrainedWorkerGetsNoGraceAndItsItemsMoveMakeBeforeBreak() {
        want("a;1", "b;2");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        recorded("b;2", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("a;1", "b;2"), Set.of("a;1", "b;2"));
        worker(W2, true, Set.of(), Set.of());
        draining.add(W1);

        assertThat(decide()).containsExactlyInAnyOrder(new ReconcileAction.Assign("a;1", W1, W2, true),
                new ReconcileAction.Assign("b;2", W1, W2, true));

        // a;1 is on W2 now, not confirmed yet: W1 still runs it and is not told to stop.
        recorded("a;1", W2, ActualSubscription.Status.PENDING);
        handovers.put("a;1", W1);
        lastSent.put("a;1", now);
        workers.set(1, new WorkerView(W2, true, Worker.UNLIMITED, 0, 0, Set.of(), now, 0, Set.of("a;1"), false, 0));
        inFlight.put("b;2", W2);
        assertThat(decide()).isEmpty();

        // Confirmed by W2's report: the reconciler stops W1's copy as it records the confirmation.
        workers.set(1, new WorkerView(W2, true, Worker.UNLIMITED, 0, 0, Set.of("a;1"), now, 0, Set.of("a;1"), false,
                0));
        assertThat(decide()).containsExactly(new ReconcileAction.Confirm("a;1", W2));
    }

    @Test
    void aDrainedWorkersItemWithNowhereToGoKeepsRunningThere() {
        want("a;1");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("a;1"), Set.of("a;1"));
        worker(W2, false, null, Set.of());
        draining.add(W1);

        assertThat(decide()).isEmpty();
    }

    @Test
    void loadModeMovesDrainedItemsWhateverTheCapAndLeavesABalancedRestAlone() {
        Reconciliation load = new Reconciliation(new Planner(PlannerConfig.builder().mode(BalanceMode.LOAD)
                .imbalanceBand(0.25).maxMovesPerRound(0).build()), Duration.ofSeconds(10), Duration.ofSeconds(30));
        String w3 = "ws://w3";
        weighted("heavy;1", 6);
        weighted("light;2", 4);
        weighted("mid;3", 5);
        weighted("mid;4", 5);
        recorded("heavy;1", W1, ActualSubscription.Status.ACTIVE);
        recorded("light;2", W1, ActualSubscription.Status.ACTIVE);
        recorded("mid;3", W2, ActualSubscription.Status.ACTIVE);
        recorded("mid;4", w3, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("heavy;1", "light;2"), Set.of("heavy;1", "light;2"));
        worker(W2, true, Set.of("mid;3"), Set.of("mid;3"));
        worker(w3, true, Set.of("mid;4"), Set.of("mid;4"));
        draining.add(W1);

        // W1's 10 go to W2 and W3 (5 each now), heaviest first to the least loaded: both drained items move though
        // the cap allows no balancing move, and W2 and W3 (11 and 9 after, mean 10) are left alone.
        assertThat(load.decide(new Reconciliation.Input(desired, actual, workers, inFlight, notBefore, lastSent,
                lastUnsubscribed, now, draining, handovers))).containsExactlyInAnyOrder(
                        new ReconcileAction.Assign("heavy;1", W1, W2, true),
                        new ReconcileAction.Assign("light;2", W1, w3, true));
    }

    private void weighted(String id, int weight) {
        desired.put(id, WorkItem.builder(id).rtspUrl("rtsp://c/" + id).model(1, "m").modelUrl("http://m/x")
                .weight(weight).build());
    }

    @Test
    void newItemsAreAssignedEvenly() {
        want("a;1", "b;2");
        worker(W1, true, Set.of(), Set.of());
        worker(W2, true, Set.of(), Set.of());
        assertThat(decide()).extracting(a -> ((ReconcileAction.Assign) a).to()).containsExactlyInAnyOrder(W1, W2);
    }

    @Test
    void aNewLeaderAdoptsWhatWorkersRunInsteadOfSubscribingItAgain() {
        want("a;1", "b;2");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("a;1"), Set.of());
        worker(W2, true, Set.of("b;2"), Set.of()); // b has no record: its subscribe was sent, the write was lost
        assertThat(decide()).containsExactlyInAnyOrder(new ReconcileAction.Adopt("a;1", W1, false),
                new ReconcileAction.Adopt("b;2", W2, true));
    }

    @Test
    void anItemRecordedButNotRunByAnOnlineWorkerIsSubscribedAgain() {
        want("a;1");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of(), Set.of()); // restarted while there was no leader
        assertThat(decide()).containsExactly(new ReconcileAction.Resubscribe("a;1", W1, false));
    }

    @Test
    void aPendingItemIsConfirmedByTheReportOrRetriedAfterTheTimeout() {
        want("a;1", "b;2");
        recorded("a;1", W1, ActualSubscription.Status.PENDING);
        recorded("b;2", W2, ActualSubscription.Status.PENDING);
        lastSent.put("a;1", now - 2 * SECOND);
        lastSent.put("b;2", now - 11 * SECOND);
        worker(W1, true, Set.of("a;1"), Set.of("a;1"));
        worker(W2, true, Set.of(), Set.of("b;2"));
        assertThat(decide()).containsExactlyInAnyOrder(new ReconcileAction.Confirm("a;1", W1),
                new ReconcileAction.Resubscribe("b;2", W2, true));
        notBefore.put("b;2", now + SECOND); // backing off
        assertThat(decide()).containsExactly(new ReconcileAction.Confirm("a;1", W1));
    }

    @Test
    void anOfflineWorkersItemsMoveAndTheRecordSaysWhere() {
        want("a;1");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, false, null, Set.of("a;1"));
        worker(W2, true, Set.of(), Set.of());
        assertThat(decide()).containsExactly(new ReconcileAction.Assign("a;1", W1, W2));
    }

    @Test
    void itemsNoLongerDesiredAreRemovedAndStraysStopped() {
        want("a;1");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        recorded("gone;1", W1, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("a;1", "gone;1"), Set.of("a;1", "gone;1"));
        worker(W2, true, Set.of("a;1", "old;9"), Set.of()); // a duplicate and a leftover
        assertThat(decide()).containsExactlyInAnyOrder(new ReconcileAction.Remove("gone;1", W1),
                new ReconcileAction.Unsubscribe("a;1", W2), new ReconcileAction.Unsubscribe("old;9", W2));
        lastUnsubscribed.put(Reconciliation.key(W2, "old;9"), now - SECOND); // told a second ago: not again yet
        assertThat(decide()).doesNotContain(new ReconcileAction.Unsubscribe("old;9", W2));
    }

    @Test
    void withoutWorkersAnItemIsRecordedFailedOnceWithTheSeedsReason() {
        want("a;1");
        worker(W1, false, null, Set.of());
        assertThat(decide()).containsExactly(new ReconcileAction.Unassign("a;1", null,
                UnassignedReason.NO_WORKERS_AVAILABLE));
        actual.put("a;1", new ActualSubscription("a;1", null, null, ActualSubscription.Status.FAILED, null,
                Instant.EPOCH, Reconciliation.reasonText(UnassignedReason.NO_WORKERS_AVAILABLE), 0));
        assertThat(decide()).isEmpty();
        assertThat(Reconciliation.reasonText(UnassignedReason.NO_WORKERS_AVAILABLE))
                .isEqualTo("No workers available for assignment");
    }

    @Test
    void itemsInFlightAreLeftAlone() {
        want("a;1", "b;2");
        inFlight.put("a;1", W1);
        worker(W1, true, Set.of(), Set.of());
        worker(W2, true, Set.of(), Set.of());
        assertThat(decide()).containsExactly(new ReconcileAction.Assign("b;2", null, W2));
    }

    @Test
    void anUnchangedSteadyStateDecidesNothing() {
        want("a;1", "b;2");
        recorded("a;1", W1, ActualSubscription.Status.ACTIVE);
        recorded("b;2", W2, ActualSubscription.Status.ACTIVE);
        worker(W1, true, Set.of("a;1"), Set.of("a;1"));
        worker(W2, true, Set.of("b;2"), Set.of("b;2"));
        assertThat(decide()).isEmpty();
    }

    @Test
    void backoffDoublesUpToItsMaximum() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
        assertThat(List.of(1, 2, 3, 7, 8, 100)).extracting(backoff::after).containsExactly(Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(60), Duration.ofSeconds(60),
                Duration.ofSeconds(60));
    }
}
