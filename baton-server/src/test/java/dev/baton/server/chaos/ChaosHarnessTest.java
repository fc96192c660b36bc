package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fault harness on real processes, as {@code baton chaos} runs it: a short fixed set of trials per backend, every
 * fault the backend supports taken in turn, must show no safety violation; and the same harness on naive nodes (no
 * local deadline, a resource without fencing) must show violations, so the checkers are shown to catch them. A failing
 * run's report names each failing trial and the command that replays it.
 *
 * <p>The long runs behind the figures in docs/chaos.md use the same code with {@code --trials 1000}.
 */
class ChaosHarnessTest {

    /** Twice through the longest fault list (redis: 10 faults), about a minute per backend. */
    private static final int TRIALS = 20;
    private static final long SEED = 20261124L;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"redis", "redis-cluster", "postgresql", "peer", "bully"})
    void aFixedSetOfTrialsOnRealProcessesViolatesNoSafetyProperty(String backend) {
        ChaosRunSettings settings = new ChaosRunSettings(backend, TRIALS, SEED, 3, false, Optional.empty(), List.of(),
                true, dir);

        ChaosVerdict verdict = run(settings);

        assertThat(verdict.report().trials()).isEqualTo(TRIALS);
        assertThat(verdict.safe()).as(verdict.text()).isTrue();
    }

    @Test
    void naiveNodesAreCaughtByTheCheckers() {
        // A leader frozen or cut off from Redis for longer than its lease keeps writing without a local deadline, and
        // a resource without fencing accepts it after its successor's writes.
        ChaosRunSettings settings = new ChaosRunSettings("redis", 6, SEED, 3, true, Optional.empty(),
                List.of(FaultKind.PAUSE_NODE, FaultKind.STORE_BLACKHOLE), true, dir);

        ChaosVerdict verdict = run(settings);

        assertThat(verdict.safe()).as(verdict.text()).isFalse();
        assertThat(verdict.report().results()).filteredOn(result -> result.checker().equals("fencing"))
                .singleElement().satisfies(result -> assertThat(result.violations()).isNotEmpty());
        assertThat(verdict.text()).contains("replay trial", "--naive");
    }

    private static ChaosVerdict run(ChaosRunSettings settings) {
        History history;
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings), System.out)) {
            history = run.run();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        verdict.save(settings.dir());
        System.out.println(verdict.text());
        return verdict;
    }
}
