package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fault harness on real processes, as {@code baton chaos} runs it: a short fixed set of trials per backend, every
 * fault the backend supports taken in turn, must show no safety violation; and the same harness on naive nodes (no
 * local deadline, a resource without fencing) must show violations, so the checkers are shown to catch them. A failing
 * run's report names each failing trial and the command that replays it.
 *
 * <p>The long runs behind the figures in docs/chaos.md use the same code with {@code --trials 1000}.
 */
class ChaosHarnessTest {

    /** The naive run's trials. */
    private static final int NAIVE_TRIALS = 6;
    private static final long SEED = 20261124L;
    /** The faults of the run with workers: node faults that move the leadership, and the worker-only fault. */
    static final List<FaultKind> WITH_WORKERS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.STORE_BLACKHOLE, FaultKind.PAUSE_AFTER_FENCED_WRITE);

    @TempDir
    Path dir;

    /** Twice through each backend's fault list (redis 10 faults, postgresql 9, redis-cluster 6, bully 6, peer 8). */
    @ParameterizedTest(name = "{0}, {1} trials")
    @CsvSource({"redis, 20", "redis-cluster, 12", "postgresql, 18", "peer, 16", "bully, 12"})
    void aFixedSetOfTrialsOnRealProcessesViolatesNoSafetyProperty(String backend, int trials) {
        ChaosRunSettings settings = new ChaosRunSettings(backend, trials, SEED, 3, false, Optional.empty(), List.of(),
                true, dir);

        ChaosTarget target = ChaosCommand.open(settings);
        ChaosVerdict verdict = run(settings, target);

        assertThat(trials).as("twice through %s's faults", backend).isEqualTo(2 * target.faults().size());
        assertThat(verdict.report().trials()).isEqualTo(trials);
        assertThat(verdict.safe()).as(verdict.text()).isTrue();
    }

    @Test
    void naiveNodesAreCaughtByTheCheckers() {
        // A leader frozen or cut off from Redis for longer than its lease keeps counting itself leader without a local
        // deadline, beside its successor, and a resource without fencing accepts its writes after its successor's.
        ChaosRunSettings settings = new ChaosRunSettings("redis", NAIVE_TRIALS, SEED, 3, true, Optional.empty(),
                List.of(FaultKind.PAUSE_NODE, FaultKind.STORE_BLACKHOLE), true, dir);

        ChaosVerdict verdict = run(settings, ChaosCommand.open(settings));

        assertThat(verdict.safe()).as(verdict.text()).isFalse();
        for (String checker : List.of("fencing", "exclusion")) {
            assertThat(verdict.report().results()).filteredOn(result -> result.checker().equals(checker))
                    .singleElement().satisfies(result -> assertThat(result.violations()).as(checker).isNotEmpty());
        }
        assertThat(verdict.text()).contains("replay trial", "--naive");
    }

    @Test
    void workersRunTheTrialsItemsAndEachItemRunsOnOneWorker() {
        // The work cluster places each trial's items on two simulated workers through node faults that move the
        // leadership, and a leader frozen between its fenced write of an assignment and the subscribe; the workers'
        // own lines say what ran where, and the items are stopped when the trial deletes them.
        ChaosRunSettings settings = new ChaosRunSettings("redis", 5, SEED, 3, false, Optional.empty(),
                WITH_WORKERS, true, dir).withWorkers(2);

        ChaosVerdict verdict = run(settings, ChaosCommand.open(settings));
        History history = History.read(dir.resolve(ChaosVerdict.HISTORY_FILE));

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(history.eventsOf(HistoryEvent.Pause.class)).as("the leader stopped itself after a fenced write")
                .anySatisfy(pause -> assertThat(pause.trial()).isEqualTo(5));
        assertThat(history.eventsOf(HistoryEvent.WorkerCommand.class))
                .anySatisfy(command -> assertThat(command.start() && command.carriedOut()).isTrue())
                .anySatisfy(command -> assertThat(!command.start() && command.carriedOut()).isTrue());
        assertThat(verdict.report().results()).filteredOn(result -> result.checker().equals("one-worker-per-item"))
                .singleElement().satisfies(result -> assertThat(result.violations()).isEmpty());
    }

    private static ChaosVerdict run(ChaosRunSettings settings, ChaosTarget target) {
        History history;
        try (ChaosRun run = new ChaosRun(settings, target, System.out)) {
            history = run.run();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        verdict.save(settings.dir());
        System.out.println(verdict.text());
        return verdict;
    }
}
