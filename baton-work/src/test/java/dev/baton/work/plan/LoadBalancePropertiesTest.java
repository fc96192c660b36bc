package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Load mode: every item accounted for and capacity kept (as in weighted mode); no plan makes more balancing moves
 * than the cap while new and orphaned items are all placed; repeated plans bring every worker inside the band when
 * every item is small enough (at most band × mean); an assignment inside the band makes no moves; the same input in
 * any order gives the same plan. Loads are recomputed here from the plain scenario, not from the planner's arrays.
 */
class LoadBalancePropertiesTest {

    @Property(tries = 300)
    void loadModeAccountsForEveryItemWithinCapacity(@ForAll("anyScenarios") Scenario scenario,
            @ForAll @IntRange(min = 0, max = 8) int cap) {
        Plan plan = planner(0.10, cap).plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.LOAD);
    }

    @Property(tries = 300)
    void aPlanNeverMakesMoreBalancingMovesThanTheCap(@ForAll("skewed") Scenario scenario,
            @ForAll @IntRange(min = 0, max = 6) int cap) {
        Plan plan = planner(0.10, cap).plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.LOAD);
        Map<String, Worker> workers = byId(scenario.workers());
        long balancing = plan.moves().stream()
                .filter(m -> m.kind() == Move.Kind.MOVE && workers.containsKey(m.from())
                        && PlanChecks.eligible(workers.get(m.from())))
                .count();
        assertThat(balancing).as("moves between eligible workers").isLessThanOrEqualTo(cap);
        if (scenario.workers().stream().anyMatch(PlanChecks::eligible)) {
            assertThat(plan.unassigned()).as("new and orphaned items are placed whatever the cap").isEmpty();
        }
    }

    @Property(tries = 200)
    void enoughRoundsBringEveryWorkerInsideTheBandWhenItemsAreSmall(@ForAll("manySmall") Scenario scenario,
            @ForAll @IntRange(min = 8, max = 30) int bandPercent, @ForAll @IntRange(min = 1, max = 8) int cap) {
        double band = bandPercent / 100.0;
        Assume.that(feasible(scenario, band));
        Planner planner = planner(band, cap);
        Plan plan = planner.plan(scenario.input());
        int rounds = 0;
        while (!plan.moves().isEmpty()) {
            assertThat(++rounds).as("rounds until no moves").isLessThan(5_000);
            plan = planner.plan(plan.nextInput());
        }
        PlanChecks.assertComplete(new Scenario(scenario.items(), scenario.workers(), placements(plan)), plan,
                BalanceMode.LOAD);
        assertInsideBand(scenario, plan, band);
    }

    @Property(tries = 150)
    void anAssignmentInsideTheBandMakesNoMoves(@ForAll("manySmall") Scenario scenario,
            @ForAll @IntRange(min = 8, max = 30) int bandPercent, @ForAll long seed) {
        double band = bandPercent / 100.0;
        Assume.that(feasible(scenario, band));
        Planner planner = planner(band, 1_000);
        Plan settled = planner.plan(planner.plan(scenario.input()).nextInput());
        for (int round = 0; round < 100 && !settled.moves().isEmpty(); round++) {
            settled = planner.plan(settled.nextInput());
        }
        assertInsideBand(scenario, settled, band);
        Scenario inside = new Scenario(scenario.items(), scenario.workers(), placements(settled));
        assertThat(planner.plan(settled.nextInput()).moves()).as("derived input").isEmpty();
        assertThat(planner.plan(inside.input(seed)).moves()).as("input built from scratch").isEmpty();
        // A wider band accepts what a narrower one settled on.
        assertThat(planner(Math.min(0.99, band * 2), 1_000).plan(inside.input(seed)).moves()).isEmpty();
    }

    @Property(tries = 200)
    void loadModeIgnoresInputOrder(@ForAll("anyScenarios") Scenario scenario, @ForAll long seedA,
            @ForAll long seedB, @ForAll @IntRange(min = 0, max = 8) int cap) {
        Planner planner = planner(0.10, cap);
        MovementPropertiesTest.assertSamePlan(planner.plan(scenario.input(seedA)), planner.plan(scenario.input(seedB)));
    }

    @Provide
    Arbitrary<Scenario> anyScenarios() {
        return Scenarios.any(true);
    }

    /**
     * Online workers (a few offline) without limits, items weighing 1..12 (up to 300) on no worker, an offline or gone worker,
     * or piled onto the first few workers: far outside any band, with orphans to place.
     */
    @Provide
    Arbitrary<Scenario> skewed() {
        return skewed(0, 12);
    }

    /** Like {@link #skewed()} with 150 to 300 items weighing 1..6: mostly small enough for a 10% band. */
    @Provide
    Arbitrary<Scenario> manySmall() {
        return skewed(150, 6);
    }

    private static Arbitrary<Scenario> skewed(int minItems, long maxWeight) {
        Arbitrary<List<Worker>> workers = Combinators.combine(Arbitraries.integers().between(2, 10),
                        Arbitraries.integers().between(0, 2))
                .as((online, offline) -> {
                    List<Worker> list = new ArrayList<>();
                    for (int w = 0; w < online + offline; w++) {
                        Worker worker = Worker.online("ws://worker-" + w);
                        list.add(w < online ? worker : worker.offline());
                    }
                    return list;
                });
        Arbitrary<List<Long>> weights = Arbitraries.longs().between(1, maxWeight).list().ofMinSize(minItems)
                .ofMaxSize(300);
        Arbitrary<List<Integer>> where = Arbitraries.integers().between(-3, 2).list().ofSize(300);
        return Combinators.combine(workers, weights, where).as((workerList, weightList, whereList) -> {
            List<PlanItem> items = new ArrayList<>();
            List<Scenario.Placement> placements = new ArrayList<>();
            for (int i = 0; i < weightList.size(); i++) {
                String id = "item-" + i;
                items.add(PlanItem.of(id, weightList.get(i)));
                int at = whereList.get(i);
                if (at == -2) {
                    placements.add(new Scenario.Placement(id, "ws://gone-1"));
                } else if (at == -1) {
                    placements.add(new Scenario.Placement(id, workerList.get(workerList.size() - 1).id()));
                } else if (at >= 0) {
                    placements.add(new Scenario.Placement(id, workerList.get(Math.min(at, 1)).id()));
                }
            }
            return new Scenario(items, workerList, placements);
        });
    }

    private static Planner planner(double band, int cap) {
        return new Planner(PlannerConfig.builder().mode(BalanceMode.LOAD).imbalanceBand(band).maxMovesPerRound(cap)
                .build());
    }

    /** Every item costs at most band × mean load over the eligible workers (the mean once every item is placed). */
    private static boolean feasible(Scenario scenario, double band) {
        long eligible = scenario.workers().stream().filter(PlanChecks::eligible).count();
        long total = scenario.items().stream().mapToLong(PlanItem::weight).sum();
        long largest = scenario.items().stream().mapToLong(PlanItem::weight).max().orElse(0);
        return eligible > 0 && largest <= band * total / eligible;
    }

    private static void assertInsideBand(Scenario scenario, Plan plan, double band) {
        Map<String, Long> weights = new HashMap<>();
        scenario.items().forEach(i -> weights.put(i.id(), i.weight()));
        Map<String, Long> loads = new HashMap<>();
        plan.assignment().forEach((item, worker) -> loads.merge(worker, weights.get(item), Long::sum));
        List<Worker> eligible = scenario.workers().stream().filter(PlanChecks::eligible).toList();
        double mean = (double) weights.values().stream().mapToLong(Long::longValue).sum() / eligible.size();
        for (Worker w : eligible) {
            assertThat((double) loads.getOrDefault(w.id(), 0L)).as("load of %s (mean %s, band %s)", w.id(), mean, band)
                    .isBetween(mean * (1 - band), mean * (1 + band));
        }
    }

    private static List<Scenario.Placement> placements(Plan plan) {
        List<Scenario.Placement> list = new ArrayList<>();
        plan.assignment().forEach((item, worker) -> list.add(new Scenario.Placement(item, worker)));
        return list;
    }

    private static Map<String, Worker> byId(List<Worker> workers) {
        Map<String, Worker> map = new HashMap<>();
        workers.forEach(w -> map.put(w.id(), w));
        return map;
    }
}
