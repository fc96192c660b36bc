package dev.baton.work.plan;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The same input gives the same plan, whatever order its items, workers and placements were listed in: the same
 * assignment in the same order, the same moves in the same order, the same unassigned items.
 */
class DeterminismPropertiesTest {

    @Property(tries = 200)
    void countModeIgnoresInputOrder(@ForAll("countScenarios") Scenario scenario, @ForAll long seedA,
            @ForAll long seedB) {
        Planner planner = Planner.defaults();
        MovementPropertiesTest.assertSamePlan(planner.plan(scenario.input(seedA)), planner.plan(scenario.input(seedB)));
    }

    @Property(tries = 200)
    void weightedModeIgnoresInputOrder(@ForAll("weightedScenarios") Scenario scenario, @ForAll long seedA,
            @ForAll long seedB) {
        Planner planner = new Planner(PlannerConfig.weighted());
        MovementPropertiesTest.assertSamePlan(planner.plan(scenario.input(seedA)), planner.plan(scenario.input(seedB)));
    }

    @Property(tries = 100)
    void planningTheSameInputTwiceGivesTheSamePlan(@ForAll("countScenarios") Scenario scenario) {
        PlanInput input = scenario.input();
        MovementPropertiesTest.assertSamePlan(Planner.defaults().plan(input), Planner.defaults().plan(input));
    }

    @Provide
    Arbitrary<Scenario> countScenarios() {
        return Scenarios.any(false);
    }

    @Provide
    Arbitrary<Scenario> weightedScenarios() {
        return Scenarios.any(true);
    }
}
