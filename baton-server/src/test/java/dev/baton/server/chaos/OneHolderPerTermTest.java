package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.crash;
import static dev.baton.server.chaos.Events.lost;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OneHolderPerTermTest {

    private final Checker checker = new OneHolderPerTerm();

    @Test
    void eachTermWithItsOwnHolderPasses() {
        History history = History.of(
                trial(1, FaultKind.KILL_NODE, 0, 1000, 5000, 1500.0),
                acquired(1, "n1", 1, 0, 5),
                crash(1, "n1", 500),
                acquired(1, "n2", 2, 1200, 1300),
                lost(1, "n2", 2, 2000),
                acquired(1, "n2", 3, 2100, 2110));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void twoNodesAcquiringOneTermIsAViolationNamingBoth() {
        History history = History.of(
                trial(2, FaultKind.PARTITION_ONE, 0, 1000, 5000, 1500.0),
                acquired(1, "n1", 7, 0, 5),
                acquired(2, "n2", 7, 100, 120),
                acquired(2, "n3", 8, 300, 310));

        List<Violation> violations = checker.check(history);

        assertThat(violations).singleElement().satisfies(violation -> {
            assertThat(violation.checker()).isEqualTo("one-holder-per-term");
            assertThat(violation.trial()).isEqualTo(2);
            assertThat(violation.message()).isEqualTo("term 7 acquired by 2 nodes: n1 at trial 1 +0.0 ms;"
                    + " n2 at trial 2 +120.0 ms");
        });
    }

    @Test
    void twoNodesInDifferentTrialsStillShareTheTerm() {
        History history = History.of(
                acquired(1, "n1", 4, 0, 5),
                acquired(9, "n3", 4, 90_000, 90_010));

        assertThat(checker.check(history)).singleElement()
                .satisfies(violation -> assertThat(violation.message()).contains("n1", "n3", "term 4"));
    }

    @Test
    void reacquiringATermAfterBeingKilledIsAViolation() {
        History history = History.of(
                trial(3, FaultKind.STORE_RESTART_EMPTY, 0, 1000, 5000, 1500.0),
                acquired(3, "n1", 5, 0, 10),
                crash(3, "n1", 400),
                acquired(3, "n1", 5, 1400, 1450));

        assertThat(checker.check(history)).singleElement().satisfies(violation -> {
            assertThat(violation.trial()).isEqualTo(3);
            assertThat(violation.message()).isEqualTo("n1 acquired term 5 at trial 3 +10.0 ms, was killed at trial 3"
                    + " +400.0 ms and acquired term 5 again at trial 3 +1450.0 ms");
        });
    }

    @Test
    void theSameNodeAnnouncingATermTwiceWithoutACrashIsNotThisCheckersConcern() {
        History history = History.of(
                acquired(1, "n1", 5, 0, 10),
                acquired(1, "n1", 5, 20, 30),
                crash(1, "n1", 400));

        assertThat(checker.check(history)).isEmpty();
    }
}
