package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.WorkClusterEvent;
import dev.baton.work.WorkClusterState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Planned departures on a fake clock: a drained worker's items run elsewhere before they stop on it (no instant
 * without a running copy), and a worker away for less than the restart grace keeps its items without being
 * subscribed again.
 */
class DrainAndGraceTest {

    private static final Duration STEP = Duration.ofMillis(50);
    private static final int ITEMS = 12;

    private final SimCluster sim = new SimCluster().withWorkers(3);

    @AfterEach
    void close() {
        sim.close();
    }

    private SimCluster.Node steadyState() {
        // Commands and reports take up to 400 ms each way: a move that stopped the old copy when it started the new
        // one would leave its item running nowhere for a while, which runWithoutGaps would see.
        sim.workers.latency(Duration.ofMillis(400), new Random(7), sim.clock);
        sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        sim.start("p2");
        sim.run(Duration.ofSeconds(3));
        SimCluster.Node follower = sim.follower();
        for (int i = 0; i < ITEMS; i++) {
            assertThat(sim.await(follower.cluster.subscribe(SimCluster.item("display-" + i + ";cam-" + i)))).isTrue();
        }
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.placements()).hasSize(ITEMS).allSatisfy((item, on) -> assertThat(on).hasSize(1));
        return follower;
    }

    /** Runs for {@code duration} in small steps, checking that every item runs somewhere at every step. */
    private void runWithoutGaps(Duration duration) {
        for (long t = 0; t < duration.toMillis(); t += STEP.toMillis()) {
            sim.run(STEP);
            Map<String, List<String>> placements = sim.placements();
            assertThat(placements.keySet()).as("items running at +%d ms", t).hasSize(ITEMS);
        }
    }

    @Test
    void aDrainedWorkersItemsRunElsewhereBeforeTheyStopThereAndItGetsNothingNew() {
        SimCluster.Node follower = steadyState();
        String drained = sim.workerUrls.get(0);
        List<String> itemsThere = List.copyOf(sim.workers.get(drained).items());
        assertThat(itemsThere).isNotEmpty();

        assertThat(sim.await(follower.cluster.drain(drained, "deploy"))).isTrue();
        runWithoutGaps(Duration.ofSeconds(10));

        assertThat(sim.workers.get(drained).items()).isEmpty();
        assertThat(sim.placements()).hasSize(ITEMS).allSatisfy((item, on) -> assertThat(on).hasSize(1)
                .doesNotContain(drained));
        for (String item : itemsThere) {
            assertThat(sim.workers.get(drained).received).as(item).contains("unsubscribe " + item);
        }
        WorkClusterState state = sim.await(follower.cluster.getState());
        assertThat(state.draining()).containsOnlyKeys(drained).containsEntry(drained, "deploy");
        assertThat(sim.leader().events).anySatisfy(e -> assertThat(e).isInstanceOf(
                WorkClusterEvent.WorkerDraining.class));

        // A new item does not go to the drained worker; ending the drain lets the planner use it again.
        assertThat(sim.await(follower.cluster.subscribe(SimCluster.item("display-new;cam-new")))).isTrue();
        sim.run(Duration.ofSeconds(2));
        assertThat(sim.workers.get(drained).items()).isEmpty();
        assertThat(sim.await(follower.cluster.undrain(drained))).isTrue();
        sim.run(Duration.ofSeconds(8));
        assertThat(sim.workers.get(drained).items()).isNotEmpty();
        assertThat(sim.await(follower.cluster.getState()).draining()).isEmpty();
    }

    @Test
    void aDrainOutlivesTheLeaderThatRecordedIt() {
        SimCluster.Node follower = steadyState();
        String drained = sim.workerUrls.get(1);
        assertThat(sim.await(follower.cluster.drain(drained, "retire"))).isTrue();
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.workers.get(drained).items()).isEmpty();

        sim.leader().election.stepDown();
        sim.run(Duration.ofSeconds(10));

        assertThat(sim.leader()).isSameAs(follower);
        assertThat(sim.workers.get(drained).items()).isEmpty();
        assertThat(sim.placements()).hasSize(ITEMS);
    }

    @Test
    void aWorkerThatAnnouncesItIsStoppingIsDrainedUntilItComesBackAsANewProcess() {
        steadyState();
        FakeWorkers.Worker leaving = sim.workers.get(sim.workerUrls.get(2));
        assertThat(leaving.items()).isNotEmpty();

        leaving.announceDrain("SIGTERM");
        runWithoutGaps(Duration.ofSeconds(10));
        assertThat(leaving.items()).isEmpty();

        // It restarts as a new process: the announcement ends with the new connection, and it gets items again, by
        // rebalancing moves that are make-before-break too (no gap while they move back).
        leaving.kill();
        leaving.restart();
        runWithoutGaps(Duration.ofSeconds(15));
        assertThat(leaving.items()).isNotEmpty();
        assertThat(sim.placements()).allSatisfy((item, on) -> assertThat(on).hasSize(1));
    }

    @Test
    void aWorkerThatAnnouncedItsDrainAndLeftBeforeItsItemsMovedGetsNoGrace() {
        // Room for 5 items a worker: of the 4 a drained worker runs, only 2 find room elsewhere at first.
        sim.config = sim.config.toBuilder().restartGrace(Duration.ofSeconds(60)).workerCapacity(5).build();
        SimCluster.Node follower = steadyState();
        FakeWorkers.Worker leaving = sim.workers.get(sim.workerUrls.get(0));
        leaving.announceDrain("SIGTERM");
        runWithoutGaps(Duration.ofSeconds(5));
        List<String> stranded = List.copyOf(leaving.items());
        assertThat(stranded).as("items with nowhere else to go stay on the drained worker").hasSize(2);

        // Its drain timeout runs out and it exits with them; then room opens up elsewhere.
        leaving.kill();
        sim.run(Duration.ofSeconds(2));
        List<String> elsewhere = sim.placements().keySet().stream().filter(item -> !stranded.contains(item))
                .limit(2).toList();
        for (String item : elsewhere) {
            assertThat(sim.await(follower.cluster.unsubscribe(item))).isTrue();
        }
        sim.run(Duration.ofSeconds(10)); // far less than the grace

        assertThat(sim.placements()).as("what it left behind runs elsewhere well within the grace")
                .containsKeys(stranded.toArray(String[]::new))
                .allSatisfy((item, on) -> assertThat(on).hasSize(1).doesNotContain(leaving.url));
        assertThat(sim.await(follower.cluster.getState()).draining()).as("still leaving until it comes back")
                .containsKey(leaving.url);
    }

    @Test
    void aWorkerCutOffForLessThanTheGraceKeepsItsItemsAndIsNotSubscribedAgain() {
        sim.config = sim.config.toBuilder().restartGrace(Duration.ofSeconds(30)).build();
        steadyState();
        FakeWorkers.Worker blinking = sim.workers.get(sim.workerUrls.get(0));
        List<String> itemsThere = List.copyOf(blinking.items());
        Map<String, List<String>> before = sim.placements();

        blinking.cutOff();
        sim.run(Duration.ofSeconds(20));
        assertThat(sim.placements()).as("nothing moved while it was away").isEqualTo(before);

        blinking.reconnectable();
        sim.run(Duration.ofSeconds(20)); // back, and past the end of the grace
        assertThat(sim.placements()).isEqualTo(before);
        assertThat(itemsThere).allSatisfy(item -> assertThat(blinking.subscribes(item)).as(item).isEqualTo(1));
    }

    @Test
    void aWorkerAwayLongerThanTheGraceLosesItsItems() {
        sim.config = sim.config.toBuilder().restartGrace(Duration.ofSeconds(30)).build();
        steadyState();
        FakeWorkers.Worker gone = sim.workers.get(sim.workerUrls.get(0));
        List<String> itemsThere = List.copyOf(gone.items());

        gone.kill();
        sim.run(Duration.ofSeconds(20));
        assertThat(IntStream.range(1, 3).mapToObj(i -> sim.workers.get(sim.workerUrls.get(i)).items())
                .flatMap(java.util.Set::stream)).as("within the grace").doesNotContainAnyElementsOf(itemsThere);

        sim.run(Duration.ofSeconds(15));
        assertThat(sim.placements()).hasSize(ITEMS).allSatisfy((item, on) -> assertThat(on).hasSize(1)
                .doesNotContain(gone.url));
    }
}
