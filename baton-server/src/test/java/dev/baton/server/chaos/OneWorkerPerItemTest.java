package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.refusedCommand;
import static dev.baton.server.chaos.Events.trial;
import static dev.baton.server.chaos.Events.workerCommand;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OneWorkerPerItemTest {

    private final OneWorkerPerItem checker = new OneWorkerPerItem();

    @Test
    void aPlannedMoveWithinTheBoundPasses() {
        // make-before-break: w2 starts the item, its report confirms it, w1 stops it 600 ms later
        History history = History.of(trial(1, FaultKind.NONE, 0, 2000, 9000, 2100.0),
                workerCommand(1, "w1", "chaos;t1-1", true, 5, 100),
                workerCommand(1, "w2", "chaos;t1-1", true, 5, 3000),
                workerCommand(1, "w1", "chaos;t1-1", false, 5, 3600),
                workerCommand(1, "w2", "chaos;t1-1", false, 5, 8000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void twoCopiesBeyondTheBoundFail() {
        // a deposed leader of term 5 starts the item on w2 while w1 runs it for term 6, and nothing stops either
        History history = History.of(trial(1, FaultKind.PAUSE_NODE, 0, 3000, 12_000, 3500.0),
                workerCommand(1, "w1", "chaos;t1-1", true, 6, 100),
                workerCommand(1, "w2", "chaos;t1-1", true, 5, 4000),
                workerCommand(1, "w1", "chaos;t1-1", false, 6, 11_000),
                workerCommand(1, "w2", "chaos;t1-1", false, 6, 11_500));

        List<Violation> violations = checker.check(history);

        assertThat(violations).singleElement().satisfies(v -> {
            assertThat(v.trial()).isEqualTo(1);
            assertThat(v.message()).contains("chaos;t1-1", "w1 (term 6)", "w2 (term 5)", "7000.0 ms",
                    "4000 ms bound");
        });
    }

    @Test
    void anOverlapIsMeasuredFromTheLeaderBeingBack() {
        // the copies overlap from 1 s, during the fault; a leader is back at 6 s and the stray copy stops at 9 s:
        // 3 s with a leader, within the bound, though the overlap lasted 8 s
        History history = History.of(trial(1, FaultKind.STORE_BLACKHOLE, 0, 5000, 12_000, 6000.0),
                workerCommand(1, "w1", "chaos;t1-1", true, 6, 100),
                workerCommand(1, "w2", "chaos;t1-1", true, 7, 1000),
                workerCommand(1, "w1", "chaos;t1-1", false, 7, 9000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aRefusedStartRunsNothing() {
        History history = History.of(trial(1, FaultKind.PAUSE_NODE, 0, 3000, 12_000, 3500.0),
                workerCommand(1, "w1", "chaos;t1-1", true, 6, 100),
                refusedCommand(1, "w2", "chaos;t1-1", true, 5, 4000));

        assertThat(checker.check(history)).isEmpty();
    }

    @Test
    void aCopyNeverStoppedFailsAtTheEndOfTheHistory() {
        History history = History.of(trial(1, FaultKind.NONE, 0, 1000, 20_000, 1100.0),
                workerCommand(1, "w1", "chaos;t1-1", true, 5, 100),
                workerCommand(1, "w2", "chaos;t1-1", true, 5, 2000));

        assertThat(checker.check(history)).hasSize(1);
    }

    @Test
    void noWorkersNothingToCheck() {
        assertThat(checker.check(History.of(trial(1, FaultKind.NONE, 0, 1000, 2000, 1100.0)))).isEmpty();
    }
}
