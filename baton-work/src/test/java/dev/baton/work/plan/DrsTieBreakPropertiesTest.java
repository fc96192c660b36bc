package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Ties between equally loaded workers go to the best (lowest) DRS score — {@code 0.4 × load/capacity + 0.35 × CPU +
 * 0.25 × memory} by default — then to the smallest worker id.
 */
class DrsTieBreakPropertiesTest {

    private static final DrsWeights SEED = DrsWeights.SEED;

    /**
     * From an empty assignment, the workers that end one item above the level are better, at the level, than every
     * worker left at the level with room to spare.
     */
    @Property(tries = 300)
    void extraItemsGoToTheBestScoresAmongEquallyLoadedWorkers(@ForAll("firstPlans") Scenario scenario) {
        Plan plan = Planner.defaults().plan(scenario.input());
        Map<String, Long> loads = PlanChecks.loads(scenario, plan, BalanceMode.COUNT);
        List<Worker> eligible = scenario.workers().stream().filter(PlanChecks::eligible).toList();
        for (Worker above : eligible) {
            for (Worker at : eligible) {
                long level = loads.getOrDefault(at.id(), 0L);
                if (loads.getOrDefault(above.id(), 0L) == level + 1 && at.capacity() > level) {
                    assertThat(orderAt(level).compare(above, at))
                            .as("%s got an extra item over %s at level %d", above.id(), at.id(), level)
                            .isNegative();
                }
            }
        }
    }

    @Property(tries = 200)
    void aNewItemOnEquallyLoadedWorkersGoesToTheBestScore(@ForAll("unconstrainedCount") Scenario scenario) {
        // Balanced to an exact multiple, then one more item: it goes to the best worker by score, then id.
        int perWorker = 3;
        PlanInput.Builder builder = PlanInput.builder().workers(scenario.workers());
        for (int i = 0; i < perWorker * scenario.workers().size(); i++) {
            builder.item("item-" + i);
        }
        Planner planner = Planner.defaults();
        Plan balanced = planner.plan(builder.build());
        PlanInput.Builder next = PlanInput.builder().workers(scenario.workers()).assignment(balanced.assignment())
                .item("item-new");
        balanced.assignment().keySet().forEach(next::item);

        Plan plan = planner.plan(next.build());

        Worker best = scenario.workers().stream().min(orderAt(perWorker)).orElseThrow();
        assertThat(plan.moves()).containsExactly(new Move("item-new", null, best.id()));
    }

    @Property(tries = 200)
    void weightedModePlacesAnItemOnTheBestScoreAmongTheLeastLoaded(@ForAll("unconstrainedCount") Scenario scenario) {
        Plan plan = new Planner(PlannerConfig.weighted())
                .plan(PlanInput.builder().workers(scenario.workers()).item("only", 5).build());
        Worker best = scenario.workers().stream().min(orderAt(0)).orElseThrow();
        assertThat(plan.workerOf("only")).contains(best.id());
    }

    @Test
    void withEqualCountsTheWorkerWithMoreCapacityWins() {
        PlanInput input = PlanInput.builder()
                .worker(new Worker("ws://small", 10, 0, 0, true))
                .worker(new Worker("ws://large", 100, 0, 0, true))
                .item("a").item("b").item("c").build();

        Plan plan = Planner.defaults().plan(input);

        assertThat(plan.load("ws://large")).isEqualTo(2);
        assertThat(plan.load("ws://small")).isEqualTo(1);
    }

    @Test
    void weightsAreConfigurable() {
        PlanInput input = PlanInput.builder()
                .worker(new Worker("ws://busy-cpu", Worker.UNLIMITED, 0.9, 0.1, true))
                .worker(new Worker("ws://busy-memory", Worker.UNLIMITED, 0.1, 0.9, true))
                .item("a").build();

        Plan seed = Planner.defaults().plan(input);
        Plan memoryOnly = new Planner(PlannerConfig.builder().drsWeights(0, 0, 1).build()).plan(input);

        assertThat(seed.workerOf("a")).contains("ws://busy-memory");
        assertThat(memoryOnly.workerOf("a")).contains("ws://busy-cpu");
    }

    @Test
    void remainingTiesGoToTheSmallestWorkerId() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://b")).worker(Worker.online("ws://a"))
                .worker(Worker.online("ws://c")).item("only").build();

        assertThat(Planner.defaults().plan(input).workerOf("only")).contains("ws://a");
        assertThat(new Planner(PlannerConfig.weighted()).plan(input).workerOf("only")).contains("ws://a");
    }

    /** Workers by DRS score if each held {@code level}, then by id: best first. */
    private static Comparator<Worker> orderAt(long level) {
        return Comparator.<Worker>comparingDouble(w -> SEED.score(
                        w.capacity() == Worker.UNLIMITED ? 0 : (double) level / w.capacity(), w.cpu(), w.memory()))
                .thenComparing(Worker::id);
    }

    @Provide
    Arbitrary<Scenario> firstPlans() {
        return Scenarios.any(false).map(s -> new Scenario(s.items(), s.workers(), List.of()));
    }

    @Provide
    Arbitrary<Scenario> unconstrainedCount() {
        return Scenarios.unconstrained(false);
    }
}
