package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Minimal movement: a worker leaving a balanced assignment moves exactly its items; a worker joining a balanced
 * count-mode assignment of S items on W workers takes exactly floor(S / (W + 1)); planning again after applying a
 * plan moves nothing. Each checked on the derived input ({@link Plan#nextInput()}, {@link PlanInput#withoutWorker})
 * and on an input built from scratch with the same content, which must give the same plan.
 */
class MovementPropertiesTest {

    @Property(tries = 250)
    void countModeWorkerLeavingMovesExactlyItsItems(@ForAll("countScenarios") Scenario scenario,
            @ForAll @IntRange(min = 0, max = 20) int pick, @ForAll boolean disappears) {
        workerLeavingMovesExactlyItsItems(scenario, pick, disappears, PlannerConfig.defaults());
    }

    @Property(tries = 250)
    void weightedModeWorkerLeavingMovesExactlyItsItems(@ForAll("weightedScenarios") Scenario scenario,
            @ForAll @IntRange(min = 0, max = 20) int pick, @ForAll boolean disappears) {
        workerLeavingMovesExactlyItsItems(scenario, pick, disappears, PlannerConfig.weighted());
    }

    private void workerLeavingMovesExactlyItsItems(Scenario scenario, int pick, boolean disappears,
            PlannerConfig config) {
        Planner planner = new Planner(config);
        Plan balanced = planner.plan(scenario.input());
        List<Worker> holding = scenario.workers().stream()
                .filter(w -> !balanced.itemsOn(w.id()).isEmpty()).toList();
        Assume.that(!holding.isEmpty());
        Worker leaving = holding.get(pick % holding.size());
        Set<String> itsItems = new TreeSet<>(balanced.itemsOn(leaving.id()));

        PlanInput derived = disappears ? balanced.nextInput().withoutWorker(leaving.id())
                : balanced.nextInput().withWorker(leaving.offline());
        Plan after = planner.plan(derived);

        assertThat(after.moves()).allSatisfy(m -> assertThat(m.from()).isEqualTo(leaving.id()));
        assertThat(after.moves()).extracting(Move::item).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(itsItems);
        Map<String, String> untouched = new TreeMap<>(balanced.assignment());
        untouched.keySet().removeAll(itsItems);
        Map<String, String> afterOthers = new TreeMap<>(after.assignment());
        afterOthers.keySet().removeAll(itsItems);
        assertThat(afterOthers).isEqualTo(untouched);

        Scenario rebuilt = appliedScenario(scenario, balanced, disappears ? without(scenario.workers(), leaving)
                : replace(scenario.workers(), leaving.offline()));
        Plan fromScratch = planner.plan(rebuilt.input(7));
        assertSamePlan(fromScratch, after);
        PlanChecks.assertComplete(rebuilt, after, config.mode());
        if (config.mode() == BalanceMode.COUNT) {
            PlanChecks.assertCountBalanced(rebuilt, after);
        } else {
            PlanChecks.assertWeightBalanced(rebuilt, after);
        }
    }

    @Property(tries = 250)
    void countModeWorkerJoiningTakesFloorOfItemsOverWorkersPlusOne(
            @ForAll("unconstrainedCount") Scenario scenario) {
        Planner planner = Planner.defaults();
        Plan balanced = planner.plan(scenario.input());
        int items = scenario.items().size();
        int workers = scenario.workers().size();
        Worker joining = Worker.online("ws://worker-new");

        Plan after = planner.plan(balanced.nextInput().withWorker(joining));

        assertThat(after.moveCount()).isEqualTo(items / (workers + 1));
        assertThat(after.moves()).allSatisfy(m -> {
            assertThat(m.to()).isEqualTo(joining.id());
            assertThat(m.kind()).isEqualTo(Move.Kind.MOVE);
        });
        List<Worker> withJoiner = new ArrayList<>(scenario.workers());
        withJoiner.add(joining);
        Scenario rebuilt = appliedScenario(scenario, balanced, withJoiner);
        PlanChecks.assertCountBalanced(rebuilt, after);
        assertSamePlan(planner.plan(rebuilt.input(3)), after);
    }

    @Property(tries = 200)
    void weightedModeWorkerJoiningStaysBalanced(@ForAll("unconstrainedWeighted") Scenario scenario) {
        Planner planner = new Planner(PlannerConfig.weighted());
        Plan balanced = planner.plan(scenario.input());
        Worker joining = Worker.online("ws://worker-new");
        Plan after = planner.plan(balanced.nextInput().withWorker(joining));
        List<Worker> withJoiner = new ArrayList<>(scenario.workers());
        withJoiner.add(joining);
        Scenario rebuilt = appliedScenario(scenario, balanced, withJoiner);
        PlanChecks.assertComplete(rebuilt, after, BalanceMode.WEIGHTED);
        PlanChecks.assertWeightBalanced(rebuilt, after);
        assertThat(after.moves()).allSatisfy(m -> assertThat(m.kind()).isEqualTo(Move.Kind.MOVE));
    }

    @Property(tries = 250)
    void countModeReplanningAnAppliedPlanMovesNothing(@ForAll("countScenarios") Scenario scenario) {
        replanningAnAppliedPlanMovesNothing(scenario, PlannerConfig.defaults());
    }

    @Property(tries = 250)
    void weightedModeReplanningAnAppliedPlanMovesNothing(@ForAll("weightedScenarios") Scenario scenario) {
        replanningAnAppliedPlanMovesNothing(scenario, PlannerConfig.weighted());
    }

    private void replanningAnAppliedPlanMovesNothing(Scenario scenario, PlannerConfig config) {
        Planner planner = new Planner(config);
        Plan first = planner.plan(scenario.input());
        Plan again = planner.plan(first.nextInput());
        assertThat(again.moves()).isEmpty();
        assertThat(again.assignment()).isEqualTo(first.assignment());
        assertThat(again.unassigned()).isEqualTo(first.unassigned());

        Plan rebuilt = planner.plan(appliedScenario(scenario, first, scenario.workers()).input(11));
        assertThat(rebuilt.moves()).isEmpty();
        assertThat(rebuilt.assignment()).isEqualTo(first.assignment());
    }

    /** The scenario's items with {@code plan} applied as the current assignment, on {@code workers}. */
    static Scenario appliedScenario(Scenario scenario, Plan plan, List<Worker> workers) {
        List<Scenario.Placement> placements = new ArrayList<>();
        plan.assignment().forEach((item, worker) -> placements.add(new Scenario.Placement(item, worker)));
        return new Scenario(scenario.items(), workers, placements);
    }

    static void assertSamePlan(Plan actual, Plan expected) {
        assertThat(new ArrayList<>(actual.assignment().entrySet()))
                .isEqualTo(new ArrayList<>(expected.assignment().entrySet()));
        assertThat(actual.moves()).isEqualTo(expected.moves());
        assertThat(actual.unassigned()).isEqualTo(expected.unassigned());
    }

    private static List<Worker> without(List<Worker> workers, Worker leaving) {
        return workers.stream().filter(w -> !w.id().equals(leaving.id())).toList();
    }

    private static List<Worker> replace(List<Worker> workers, Worker replacement) {
        return workers.stream().map(w -> w.id().equals(replacement.id()) ? replacement : w).toList();
    }

    @Provide
    Arbitrary<Scenario> countScenarios() {
        return Scenarios.any(false);
    }

    @Provide
    Arbitrary<Scenario> weightedScenarios() {
        return Scenarios.any(true);
    }

    @Provide
    Arbitrary<Scenario> unconstrainedCount() {
        return Scenarios.unconstrained(false);
    }

    @Provide
    Arbitrary<Scenario> unconstrainedWeighted() {
        return Scenarios.unconstrained(true);
    }
}
