package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Named load-mode cases: inside the band nothing moves; outside it the cheapest settling item moves, capped. */
class LoadModeExamplesTest {

    private static Planner planner(double band, int cap) {
        return new Planner(PlannerConfig.builder().mode(BalanceMode.LOAD).imbalanceBand(band).maxMovesPerRound(cap)
                .build());
    }

    @Test
    void insideTheBandNothingMovesEvenIfWeightedModeWould() {
        // Loads 11 and 9 around a mean of 10: inside a 10% band. Weighted mode would move a 1 (11 - 1 > 9).
        PlanInput.Builder builder = PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://b"))
                .item("b1", 9).assigned("b1", "ws://b");
        for (int i = 0; i < 11; i++) {
            builder.item("a" + i).assigned("a" + i, "ws://a");
        }
        PlanInput input = builder.build();

        assertThat(planner(0.10, 64).plan(input).moves()).isEmpty();
        assertThat(new Planner(PlannerConfig.weighted()).plan(input).moves()).hasSize(1);
    }

    @Test
    void outsideTheBandTheCheapestItemThatSettlesThePairMoves() {
        // a holds 30 (items 12, 8, 5, 3, 2), b holds 10: mean 20, band 18..22. a must shed 8..12 and b may take
        // up to 12: the cheapest item doing that is the 8; the 12 would also do but costs more.
        PlanInput input = PlanInput.builder()
                .worker(Worker.online("ws://a")).worker(Worker.online("ws://b"))
                .item("big", 12).item("mid", 8).item("small", 5).item("tiny", 3).item("least", 2).item("b1", 10)
                .assigned("big", "ws://a").assigned("mid", "ws://a").assigned("small", "ws://a")
                .assigned("tiny", "ws://a").assigned("least", "ws://a").assigned("b1", "ws://b")
                .build();

        Plan plan = planner(0.10, 64).plan(input);

        assertThat(plan.moves()).containsExactly(new Move("mid", "ws://a", "ws://b"));
        assertThat(plan.load("ws://a")).isEqualTo(22);
        assertThat(plan.load("ws://b")).isEqualTo(18);
    }

    @Test
    void theCapLimitsBalancingMovesButNotPlacements() {
        // Twelve items of 1 on a, none on b, and four new items: the new ones go to b (least loaded first), then
        // one balancing move is allowed.
        PlanInput.Builder builder = PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://b"));
        for (int i = 0; i < 12; i++) {
            builder.item("old-" + i).assigned("old-" + i, "ws://a");
        }
        for (int i = 0; i < 4; i++) {
            builder.item("new-" + i);
        }

        Plan plan = planner(0.10, 1).plan(builder.build());

        List<Move> moves = plan.moves();
        assertThat(moves.stream().filter(m -> m.kind() == Move.Kind.SUBSCRIBE)).hasSize(4);
        assertThat(moves.stream().filter(m -> m.kind() == Move.Kind.MOVE)).hasSize(1);
        assertThat(plan.load("ws://a")).isEqualTo(11);
        assertThat(plan.load("ws://b")).isEqualTo(5);
        assertThat(plan.mode()).isEqualTo(BalanceMode.LOAD);
    }

    @Test
    void anOfflineWorkersItemsMoveWhateverTheCap() {
        PlanInput input = PlanInput.builder()
                .worker(Worker.online("ws://a")).worker(Worker.online("ws://b")).worker(Worker.online("ws://c").offline())
                .item("c1", 4).item("c2", 4).item("c3", 4)
                .assigned("c1", "ws://c").assigned("c2", "ws://c").assigned("c3", "ws://c")
                .build();

        Plan plan = planner(0.10, 0).plan(input);

        assertThat(plan.itemsOn("ws://c")).isEmpty();
        assertThat(plan.assignment()).hasSize(3);
    }
}
