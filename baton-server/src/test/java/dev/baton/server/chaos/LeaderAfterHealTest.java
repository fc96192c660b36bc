package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaderAfterHealTest {

    private final Checker checker = new LeaderAfterHeal();

    @Test
    void isALivenessCheck() {
        assertThat(checker.safety()).isFalse();
        assertThat(Checker.standard()).filteredOn(Checker::safety).extracting(Checker::name).containsExactly(
                "one-holder-per-term", "terms-rise", "exclusion", "fencing", "fence-linearizable",
                "acknowledged-items-readable", "items-linearizable", "one-worker-per-item");
    }

    @Test
    void aLeaderWithinTheBoundPasses() {
        History history = History.of(
                trial(1, FaultKind.KILL_NODE, 0, 1000, 9000, 1000.0),
                trial(2, FaultKind.KILL_NODE, 10_000, 11_000, 19_000, 15_000.0));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aLateLeaderIsAMiss() {
        History history = History.of(trial(3, FaultKind.PARTITION_TWO, 0, 1000, 9000, 5000.5));

        assertThat(checker.check(history)).singleElement().satisfies(miss -> {
            assertThat(miss.checker()).isEqualTo("leader-after-heal");
            assertThat(miss.trial()).isEqualTo(3);
            assertThat(miss.message()).isEqualTo("leader only 4000.5 ms after partition-two healed at +1000.0 ms"
                    + " (bound 4000 ms)");
        });
    }

    @Test
    void noLeaderAtAllIsAMiss() {
        History history = History.of(trial(4, FaultKind.STORE_PAUSE, 0, 1000, 9000, null));

        assertThat(checker.check(history)).singleElement().satisfies(miss -> assertThat(miss.message())
                .isEqualTo("no leader after store-pause healed at +1000.0 ms until the trial ended at +9000.0 ms"
                        + " (8000.0 ms; bound 4000 ms)"));
    }
}
