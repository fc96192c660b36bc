package dev.baton.work.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

/** Configuration and input validation: every message names the field or the id at fault. */
class PlannerConfigTest {

    @Test
    void defaultsAreCountModeWithTheSeedsWeights() {
        PlannerConfig config = PlannerConfig.defaults();

        assertThat(config.mode()).isEqualTo(BalanceMode.COUNT);
        assertThat(config.drsWeights()).isEqualTo(new DrsWeights(0.4, 0.35, 0.25));
        assertThat(config.toBuilder().mode(BalanceMode.WEIGHTED).build()).isEqualTo(PlannerConfig.weighted());
    }

    @Test
    void loadModeHasABandAndAMoveCapThatAreValidated() {
        PlannerConfig config = PlannerConfig.load();

        assertThat(config.mode()).isEqualTo(BalanceMode.LOAD);
        assertThat(config.imbalanceBand()).isEqualTo(0.10);
        assertThat(config.maxMovesPerRound()).isEqualTo(64);
        PlannerConfig tuned = config.toBuilder().imbalanceBand(0.2).maxMovesPerRound(5).build();
        assertThat(tuned.toBuilder().build()).isEqualTo(tuned).isNotEqualTo(config);
        assertThat(tuned.toString()).contains("imbalanceBand=0.2", "maxMovesPerRound=5");
        assertThatIllegalArgumentException().isThrownBy(() -> PlannerConfig.builder().imbalanceBand(0))
                .withMessage("imbalanceBand must be above 0 and below 1, got 0.0");
        assertThatIllegalArgumentException().isThrownBy(() -> PlannerConfig.builder().imbalanceBand(Double.NaN))
                .withMessageContaining("imbalanceBand");
        assertThatIllegalArgumentException().isThrownBy(() -> PlannerConfig.builder().imbalanceBand(1))
                .withMessageContaining("imbalanceBand");
        assertThatIllegalArgumentException().isThrownBy(() -> PlannerConfig.builder().maxMovesPerRound(-1))
                .withMessage("maxMovesPerRound must be at least 0, got -1");
    }

    @Test
    void drsWeightsMustBeFiniteNonNegativeAndNotAllZero() {
        assertThatIllegalArgumentException().isThrownBy(() -> new DrsWeights(-0.1, 0.35, 0.25))
                .withMessageContaining("drsWeights.load");
        assertThatIllegalArgumentException().isThrownBy(() -> new DrsWeights(0.4, Double.NaN, 0.25))
                .withMessageContaining("drsWeights.cpu");
        assertThatIllegalArgumentException().isThrownBy(() -> new DrsWeights(0.4, 0.35, Double.POSITIVE_INFINITY))
                .withMessageContaining("drsWeights.memory");
        assertThatIllegalArgumentException().isThrownBy(() -> PlannerConfig.builder().drsWeights(0, 0, 0))
                .withMessageContaining("at least one");
    }

    @Test
    void workersAndItemsAreValidated() {
        assertThatIllegalArgumentException().isThrownBy(() -> new Worker("ws://a", -1, 0, 0, true))
                .withMessageContaining("capacity of worker 'ws://a'");
        assertThatIllegalArgumentException().isThrownBy(() -> Worker.online("ws://a").withUsage(1.5, 0))
                .withMessageContaining("cpu of worker 'ws://a'");
        assertThatIllegalArgumentException().isThrownBy(() -> PlanItem.of("cam", 0))
                .withMessageContaining("weight of item 'cam'");
        assertThatIllegalArgumentException().isThrownBy(() -> PlanInput.builder().item(""))
                .withMessageContaining("item id");
    }

    @Test
    void duplicateItemsAndWorkersAreRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PlanInput.builder().item("cam").item("cam").build())
                .withMessageContaining("item 'cam' is listed twice");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PlanInput.builder().worker(Worker.online("ws://a")).worker(Worker.online("ws://a"))
                        .build())
                .withMessageContaining("worker 'ws://a' is listed twice");
    }

    @Test
    void moveKindsFollowFromAndTo() {
        assertThat(new Move("i", null, "w").kind()).isEqualTo(Move.Kind.SUBSCRIBE);
        assertThat(new Move("i", "w", null).kind()).isEqualTo(Move.Kind.UNSUBSCRIBE);
        assertThat(new Move("i", "v", "w").kind()).isEqualTo(Move.Kind.MOVE);
        assertThatIllegalArgumentException().isThrownBy(() -> new Move("i", null, null));
    }
}
