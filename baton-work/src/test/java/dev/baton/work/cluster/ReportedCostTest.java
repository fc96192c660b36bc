package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.plan.BalanceMode;
import dev.baton.work.plan.PlannerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-item costs reported by the workers, on a fake clock: in load mode the planner balances what the items cost as
 * their workers report it, not their count or their configured weight; in count mode the same reports move nothing.
 */
class ReportedCostTest {

    private static final int ITEMS = 12;
    private static final double HEAVY = 100;
    private static final double LIGHT = 10;

    private final SimCluster sim = new SimCluster().withWorkers(3);

    @AfterEach
    void close() {
        sim.close();
    }

    /** Twelve items of weight 1, four on each worker; then three on the first worker report a cost of 100. */
    private void steadyStateThenHeavyItemsOnOneWorker(BalanceMode mode) {
        sim.config = sim.config.toBuilder().planner(PlannerConfig.builder().mode(mode).build()).build();
        sim.start("p1");
        sim.run(Duration.ofSeconds(2));
        SimCluster.Node leader = sim.leader();
        for (int i = 0; i < ITEMS; i++) {
            assertThat(sim.await(leader.cluster.subscribe(SimCluster.item("display-" + i + ";cam-" + i)))).isTrue();
        }
        sim.run(Duration.ofSeconds(5));
        assertThat(sim.placements()).hasSize(ITEMS);
        List<String> first = List.copyOf(sim.workers.get(sim.workerUrls.get(0)).items());
        assertThat(first).hasSize(ITEMS / 3);
        for (String item : sim.placements().keySet()) {
            sim.workers.costs.put(item, first.indexOf(item) >= 1 ? HEAVY : LIGHT);
        }
        sim.run(Duration.ofSeconds(20));
    }

    private double load(String worker) {
        return sim.workers.get(worker).items().stream().mapToDouble(sim.workers.costs::get).sum();
    }

    @Test
    void loadModeSpreadsWhatTheWorkersReportTheItemsCost() {
        steadyStateThenHeavyItemsOnOneWorker(BalanceMode.LOAD);

        // 3 x 100 + 9 x 10 = 390, a mean of 130: every worker inside the default 10 % band, 117 to 143, which
        // takes one heavy item on each (by count, 4 items each, the first worker ran 310).
        assertThat(sim.placements()).hasSize(ITEMS).allSatisfy((item, on) -> assertThat(on).hasSize(1));
        Map<String, Double> loads = new TreeMap<>();
        sim.workerUrls.forEach(worker -> loads.put(worker, load(worker)));
        assertThat(loads).as(sim.placements() + " costs " + sim.workers.costs).allSatisfy((worker, load) ->
                assertThat(load).isBetween(117.0, 143.0));
    }

    @Test
    void countModeIgnoresReportedCosts() {
        steadyStateThenHeavyItemsOnOneWorker(BalanceMode.COUNT);

        Map<String, List<String>> placements = sim.placements();
        assertThat(placements).hasSize(ITEMS);
        assertThat(load(sim.workerUrls.get(0))).isEqualTo(3 * HEAVY + LIGHT);
    }
}
