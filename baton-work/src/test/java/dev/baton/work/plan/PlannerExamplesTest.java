package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

/** The planner's behaviour on small, named cases; the properties cover the same ground over random inputs. */
class PlannerExamplesTest {

    private final Planner planner = Planner.defaults();

    @Test
    void firstPlanSpreadsItemsEvenly() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://b"))
                .item("cam-1").item("cam-2").item("cam-3").item("cam-4").build();

        Plan plan = planner.plan(input);

        assertThat(plan.load("ws://a")).isEqualTo(2);
        assertThat(plan.load("ws://b")).isEqualTo(2);
        assertThat(plan.moves()).hasSize(4).allMatch(m -> m.kind() == Move.Kind.SUBSCRIBE);
    }

    @Test
    void offlineWorkerLosesItsItemsAndNothingElseMoves() {
        PlanInput input = PlanInput.builder()
                .worker(Worker.online("ws://a")).worker(Worker.online("ws://b").offline()).worker(Worker.online("ws://c"))
                .item("1").item("2").item("3").item("4").item("5").item("6")
                .assigned("1", "ws://a").assigned("2", "ws://a")
                .assigned("3", "ws://b").assigned("4", "ws://b")
                .assigned("5", "ws://c").assigned("6", "ws://c")
                .build();

        Plan plan = planner.plan(input);

        assertThat(plan.moves()).extracting(Move::item).containsExactlyInAnyOrder("3", "4");
        assertThat(plan.moves()).allMatch(m -> m.kind() == Move.Kind.MOVE && m.from().equals("ws://b"));
        assertThat(plan.load("ws://a")).isEqualTo(3);
        assertThat(plan.load("ws://c")).isEqualTo(3);
    }

    @Test
    void itemsOnUnknownWorkersMoveAndUndesiredItemsAreUnsubscribed() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a"))
                .item("kept").item("orphan")
                .assigned("kept", "ws://a").assigned("orphan", "ws://gone").assigned("retired", "ws://a")
                .build();

        Plan plan = planner.plan(input);

        assertThat(plan.moves()).containsExactlyInAnyOrder(
                new Move("orphan", "ws://gone", "ws://a"),
                new Move("retired", "ws://a", null));
        assertThat(plan.assignment()).containsOnlyKeys("kept", "orphan");
    }

    @Test
    void anItemOnTwoWorkersKeepsOnePlacement() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://b"))
                .item("x").item("y")
                .assigned("x", "ws://b").assigned("x", "ws://a").assigned("y", "ws://b")
                .build();

        Plan plan = planner.plan(input);

        assertThat(plan.assignment()).containsEntry("x", "ws://a").containsEntry("y", "ws://b");
        assertThat(plan.moves()).containsExactly(new Move("x", "ws://b", null));
    }

    @Test
    void withoutOnlineWorkersEveryItemIsReportedUnassigned() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a").offline())
                .item("1").item("2").assigned("1", "ws://a").build();

        Plan plan = planner.plan(input);

        assertThat(plan.assignment()).isEmpty();
        assertThat(plan.unassigned()).extracting(Unassigned::reason)
                .containsOnly(UnassignedReason.NO_WORKERS_AVAILABLE).hasSize(2);
        assertThat(plan.moves()).containsExactly(new Move("1", "ws://a", null));
    }

    @Test
    void fullWorkersLeaveTheRestUnassignedWithNoCapacity() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a").withCapacity(2))
                .item("1").item("2").item("3").build();

        Plan plan = planner.plan(input);

        assertThat(plan.load("ws://a")).isEqualTo(2);
        assertThat(plan.unassigned()).extracting(Unassigned::reason).containsExactly(UnassignedReason.NO_CAPACITY);
    }

    @Test
    void weightedModeReportsItemsLargerThanAnyWorker() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a").withCapacity(10))
                .item("small", 4).item("huge", 11).build();

        Plan plan = new Planner(PlannerConfig.weighted()).plan(input);

        assertThat(plan.workerOf("small")).contains("ws://a");
        assertThat(plan.unassigned()).containsExactly(new Unassigned("huge", UnassignedReason.ITEM_TOO_LARGE));
    }

    @Test
    void weightedModeBalancesWeightNotCount() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://b"))
                .item("heavy", 10).item("l1", 2).item("l2", 2).item("l3", 2).item("l4", 2).item("l5", 2).build();

        Plan plan = new Planner(PlannerConfig.weighted()).plan(input);

        assertThat(plan.load("ws://a")).isEqualTo(10);
        assertThat(plan.load("ws://b")).isEqualTo(10);
        assertThat(plan.itemsOn(plan.workerOf("heavy").orElseThrow())).containsExactly("heavy");
    }

    @Test
    void derivedInputsShareTheItemTable() {
        PlanInput input = PlanInput.builder().worker(Worker.online("ws://a")).item("1").item("2").build();
        Plan first = planner.plan(input);

        Plan afterJoin = planner.plan(first.nextInput().withWorker(Worker.online("ws://b")));

        assertThat(afterJoin.moves()).containsExactly(new Move(afterJoin.itemsOn("ws://b").get(0), "ws://a", "ws://b"));
        assertThat(afterJoin.input().workers()).extracting(Worker::id).containsExactly("ws://a", "ws://b");
        assertThat(afterJoin.nextInput().currentAssignment()).isEqualTo(afterJoin.assignment());
    }

    @Test
    void anInputFromOtherItemsIsRejectedAsTheCurrentAssignment() {
        Plan plan = planner.plan(PlanInput.builder().worker(Worker.online("ws://a")).item("1").build());
        PlanInput other = PlanInput.builder().worker(Worker.online("ws://a")).item("1").build();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> other.withAssignment(plan)).withMessageContaining("other items");
    }
}
