package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.work.ActualSubscription;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterException;
import dev.baton.work.WorkClusterState;
import dev.baton.work.source.InMemoryDesiredStateSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The reconciler's rules on a fake clock: retries, confirmation, rate limit, sources, restarts, the facade's calls. */
class ReconcilerSimTest {

    private final SimCluster sim = new SimCluster().withWorkers(2);

    @AfterEach
    void close() {
        sim.close();
    }

    private SimCluster.Node leaderAlone() {
        SimCluster.Node node = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        assertThat(node.cluster.isLeading()).isTrue();
        return node;
    }

    @Test
    void aFailingAssignmentHookIsRetriedWithExponentialBackoffAndTheFailureIsRecorded() {
        List<Long> calls = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger(3);
        SimCluster.Node node = sim.start("p1", b -> b.assignmentHook((item, worker) -> {
            calls.add(sim.clock.elapsed().toMillis());
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("presigning failed");
            }
            return item.withModelUrl("https://models.example/fresh-" + calls.size());
        }));
        sim.run(Duration.ofSeconds(2));
        sim.await(node.cluster.subscribe(SimCluster.item("d1;cam1")));
        sim.run(Duration.ofMillis(500));
        ActualSubscription failed = sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow();
        assertThat(failed.status()).isEqualTo(ActualSubscription.Status.FAILED);
        assertThat(failed.error()).contains("presigning failed");
        sim.run(Duration.ofSeconds(3));

        assertThat(calls).hasSize(4);
        // fast(): 200 ms, 400 ms, 800 ms between attempts
        assertThat(calls.get(1) - calls.get(0)).isBetween(200L, 300L);
        assertThat(calls.get(2) - calls.get(1)).isBetween(400L, 500L);
        assertThat(calls.get(3) - calls.get(2)).isBetween(800L, 900L);
        ActualSubscription active = sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow();
        assertThat(active.status()).isEqualTo(ActualSubscription.Status.ACTIVE);
        assertThat(active.modelUrl()).isEqualTo("https://models.example/fresh-4");
        assertThat(sim.placements().get("d1;cam1")).hasSize(1);
    }

    @Test
    void anItemWithoutModelUrlFailsWithAClearReason() {
        SimCluster.Node node = leaderAlone();
        sim.await(node.cluster.subscribe(dev.baton.work.WorkItem.builder("d1;cam1").rtspUrl("rtsp://cam/1")
                .model(1, "plates").build()));
        sim.run(Duration.ofSeconds(1));
        ActualSubscription record = sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow();
        assertThat(record.status()).isEqualTo(ActualSubscription.Status.FAILED);
        assertThat(record.error()).isEqualTo("no modelUrl: the item has none and the assignment hook gave none");
        assertThat(sim.placements()).isEmpty();
    }

    @Test
    void aSubscribeTheWorkerDoesNotConfirmIsSentAgainAfterTheConfirmTimeout() {
        SimCluster.Node node = sim.start("p1", b -> b.workers(List.of()));
        sim.workers.get(sim.workerUrls.get(0)).ignoreSubscribes = true;
        sim.workers.get(sim.workerUrls.get(1)).ignoreSubscribes = true;
        sim.run(Duration.ofSeconds(2));
        sim.await(node.cluster.subscribe(SimCluster.item("d1;cam1")));
        sim.run(Duration.ofSeconds(1));
        FakeWorkers.Worker target = sim.workers.all().stream().filter(w -> w.subscribes("d1;cam1") == 1).findFirst()
                .orElseThrow();
        assertThat(sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow().status())
                .isEqualTo(ActualSubscription.Status.PENDING);
        sim.run(Duration.ofSeconds(3)); // fast(): confirm timeout 3 s
        assertThat(target.subscribes("d1;cam1")).isEqualTo(2);
        ActualSubscription record = sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow();
        assertThat(record.status()).isEqualTo(ActualSubscription.Status.RECOVERING);
        assertThat(record.attempts()).isEqualTo(1);
        target.ignoreSubscribes = false;
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.await(node.cluster.getState()).item("d1;cam1").orElseThrow().status())
                .isEqualTo(ActualSubscription.Status.ACTIVE);
    }

    @Test
    void commandsToOneWorkerAreRateLimited() {
        sim.config = WorkClusterConfig.fast().toBuilder().commandsPerSecond(10).commandBurst(2).build();
        SimCluster.Node node = sim.start("p1", b -> { });
        sim.workers.get(sim.workerUrls.get(1)).kill(); // everything goes to worker 1
        sim.run(Duration.ofSeconds(2));
        List<Long> arrivals = new ArrayList<>();
        FakeWorkers.Worker worker = sim.workers.get(sim.workerUrls.get(0));
        for (int i = 0; i < 10; i++) {
            node.cluster.subscribe(SimCluster.item("d" + i + ";cam" + i));
        }
        int seen = 0;
        for (int t = 0; t < 200 && worker.items().size() < 10; t++) {
            sim.run(Duration.ofMillis(10));
            if (worker.items().size() > seen) {
                seen = worker.items().size();
                arrivals.add(sim.clock.elapsed().toMillis());
            }
        }
        assertThat(worker.items()).hasSize(10);
        long spread = arrivals.get(arrivals.size() - 1) - arrivals.get(0);
        assertThat(spread).as("8 commands beyond the burst of 2, at 10 per second").isGreaterThanOrEqualTo(700);
    }

    @Test
    void unsubscribeUnsubscribeAllWithCameraIdAndSetSessionIdFromAFollower() {
        leaderAlone();
        SimCluster.Node follower = sim.start("p2");
        sim.run(Duration.ofSeconds(1));
        for (String id : List.of("d1;camA", "d2;camA", "d3;camB")) {
            sim.await(follower.cluster.subscribe(SimCluster.item(id)));
        }
        sim.run(Duration.ofSeconds(2));
        assertThat(sim.placements()).containsOnlyKeys("d1;camA", "d2;camA", "d3;camB");

        assertThat(sim.await(follower.cluster.setSessionId("d3;camB", 77L))).isTrue();
        assertThat(sim.await(follower.cluster.setSessionId("d9;camZ", 77L))).isFalse();
        sim.run(Duration.ofMillis(100));
        String worker = sim.placements().get("d3;camB").get(0);
        assertThat(sim.workers.get(worker).received).contains("setSessionId");

        assertThat(sim.await(follower.cluster.unsubscribeAllWithCameraId("camA"))).isEqualTo(2);
        assertThat(sim.await(follower.cluster.unsubscribe("d3;camB"))).isTrue();
        assertThat(sim.await(follower.cluster.unsubscribe("d3;camB"))).isTrue(); // idempotent
        sim.run(Duration.ofSeconds(2));
        assertThat(sim.placements()).isEmpty();
        assertThat(sim.await(follower.cluster.getState()).items()).isEmpty();
    }

    @Test
    void aSourceIsReloadedOnRequestAndAFailingSourceChangesNothing() {
        InMemoryDesiredStateSource source = new InMemoryDesiredStateSource();
        source.put(SimCluster.item("d1;cam1"));
        AtomicInteger failing = new AtomicInteger();
        SimCluster.Node node = sim.start("p1", b -> b.source(() -> {
            if (failing.get() > 0) {
                throw new java.sql.SQLException("database unreachable");
            }
            return source.load();
        }));
        SimCluster.Node follower = sim.start("p2", b -> b.source(source));
        sim.run(Duration.ofSeconds(3));
        assertThat(sim.placements()).containsOnlyKeys("d1;cam1");

        source.put(SimCluster.item("d2;cam2"));
        sim.await(follower.cluster.requestRegeneration("camera added"));
        sim.run(Duration.ofSeconds(1));
        assertThat(sim.placements()).containsOnlyKeys("d1;cam1", "d2;cam2");

        failing.set(1);
        source.remove("d1;cam1");
        sim.await(follower.cluster.requestRegeneration("camera removed"));
        sim.run(Duration.ofSeconds(6)); // and a reconcile interval
        assertThat(sim.placements()).containsOnlyKeys("d1;cam1", "d2;cam2");

        failing.set(0);
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.placements()).containsOnlyKeys("d2;cam2");
        assertThat(node.cluster.isLeading()).isTrue();
    }

    @Test
    void itemsComeBackAfterEveryProcessRestarts() {
        SimCluster.Node first = leaderAlone();
        for (int i = 0; i < 6; i++) {
            sim.await(first.cluster.subscribe(SimCluster.item("d" + i + ";cam" + i)));
        }
        sim.run(Duration.ofSeconds(2));
        for (SimCluster.Node n : List.copyOf(sim.nodes)) {
            n.cluster.close();
            n.election.closeAsync();
        }
        sim.run(Duration.ofSeconds(2));
        for (FakeWorkers.Worker w : sim.workers.all()) { // the workers restart too, empty
            w.kill();
            w.restart();
        }
        sim.start("q1");
        sim.start("q2");
        sim.run(Duration.ofSeconds(6));
        assertThat(sim.placements()).hasSize(6).allSatisfy((item, on) -> assertThat(on).hasSize(1));
        WorkClusterState state = sim.await(sim.leader().cluster.getState());
        assertThat(state.items()).hasSize(6)
                .allSatisfy(i -> assertThat(i.status()).isEqualTo(ActualSubscription.Status.ACTIVE));
    }

    @Test
    void aRequestNoLeaderAnswersFailsAfterTheRequestTimeout() {
        SimCluster.Node node = leaderAlone();
        node.faults.hang();
        SimCluster.Node lonely = sim.start("p2");
        lonely.faults.fail(); // it can reach nothing
        var request = lonely.cluster.subscribe(SimCluster.item("d1;cam1"));
        sim.run(Duration.ofSeconds(6));
        assertThat(request).isCompletedExceptionally();
        assertThatThrownBy(request::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(WorkClusterException.class)
                .hasMessageContaining("subscribe 'd1;cam1': no leader answered within 5000 ms");
        node.faults.heal();
        lonely.faults.heal();
    }

    @Test
    void aNewLeaderPlansAsSoonAsEveryWorkerHasReportedOrFailedNotAfterTheWholeGrace() {
        sim.config = WorkClusterConfig.fast().toBuilder().takeoverGrace(Duration.ofSeconds(60)).build();
        sim.workers.get(sim.workerUrls.get(1)).kill(); // refuses connections: settled by failing
        SimCluster.Node node = sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        sim.await(node.cluster.subscribe(SimCluster.item("d1;cam1")));
        sim.run(Duration.ofMillis(500));
        assertThat(sim.placements()).containsOnlyKeys("d1;cam1");
    }
}
