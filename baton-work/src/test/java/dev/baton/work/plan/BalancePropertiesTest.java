package dev.baton.work.plan;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Count mode: no worker holds more than one item above another unless the other is full (so max − min <= 1 among
 * workers with room). Weighted mode: load(A) <= load(B) + heaviest item on A whenever B has room for that item, hence
 * max load <= average + largest item weight without capacity limits; capacity is checked by {@link PlanChecks}.
 */
class BalancePropertiesTest {

    @Property(tries = 300)
    void countModeLoadsDifferByAtMostOneAmongWorkersWithRoom(@ForAll("countScenarios") Scenario scenario) {
        Plan plan = Planner.defaults().plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.COUNT);
        PlanChecks.assertCountBalanced(scenario, plan);
    }

    @Property(tries = 300)
    void weightedModeKeepsEveryWorkerWithinItsHeaviestItemOfAnyOther(@ForAll("weightedScenarios") Scenario scenario) {
        Plan plan = new Planner(PlannerConfig.weighted()).plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.WEIGHTED);
        PlanChecks.assertWeightBalanced(scenario, plan);
    }

    @Property(tries = 150)
    void weightedModeWithoutLimitsStaysWithinAveragePlusLargestItem(
            @ForAll("unconstrainedWeighted") Scenario scenario) {
        Plan plan = new Planner(PlannerConfig.weighted()).plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.WEIGHTED);
        PlanChecks.assertWeightBalanced(scenario, plan);
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
    Arbitrary<Scenario> unconstrainedWeighted() {
        return Scenarios.unconstrained(true);
    }
}
