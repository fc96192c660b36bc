package dev.baton.work.plan;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every desired item ends on exactly one online worker with room, or is reported with the right reason; capacity is
 * never exceeded; the moves turn the current placements into the new assignment (so items not desired, and second
 * placements, are moved off). Over random inputs including the edge cases of {@link Scenarios}.
 */
class CompletenessPropertiesTest {

    @Property(tries = 300)
    void countModeAccountsForEveryItem(@ForAll("countScenarios") Scenario scenario) {
        Plan plan = Planner.defaults().plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.COUNT);
    }

    @Property(tries = 300)
    void weightedModeAccountsForEveryItem(@ForAll("weightedScenarios") Scenario scenario) {
        Plan plan = new Planner(PlannerConfig.weighted()).plan(scenario.input());
        PlanChecks.assertComplete(scenario, plan, BalanceMode.WEIGHTED);
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
