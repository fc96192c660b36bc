package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.RedisServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store-clock faults on real processes, as {@code baton chaos --faults store-clock-...} runs them: the store's
 * wall clock stepped forward by half the margin, back by seconds, or skewed keeps every safety property; stepped
 * forward by twice the lease it breaks an assumption, and what exclusion shows then is reported apart, never as a
 * safety violation. The runs in docs/chaos.md use the same code with more trials.
 */
class StoreClockChaosTest {

    private static final long SEED = 20261128L;
    /** The step that breaks an assumption, run alone. */
    static final List<FaultKind> PAST_THE_MARGIN = List.of(FaultKind.STORE_CLOCK_STEP_LARGE);
    static final List<FaultKind> WITHIN_THE_ASSUMPTIONS = List.of(FaultKind.STORE_CLOCK_STEP_SMALL,
            FaultKind.STORE_CLOCK_STEP_BACK, FaultKind.STORE_CLOCK_SKEW);

    @TempDir
    Path dir;

    /** The history of the last {@link #run}. */
    private History history;

    @Test
    void storeClockStepsWithinTheMarginAndBackViolateNoSafetyPropertyOnRedis() {
        Assumptions.assumeTrue(RedisServer.whyStoreClockUnavailable().isEmpty(),
                () -> RedisServer.whyStoreClockUnavailable().orElseThrow());

        ChaosVerdict verdict = run("redis", WITHIN_THE_ASSUMPTIONS, 3);

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("store-clock-step-small", "store-clock-step-back", "store-clock-skew")
                .doesNotContain("exclusion-assumption-broken");
        assertThat(grantsFromTheCounter(FaultKind.STORE_CLOCK_STEP_BACK))
                .as("grants made while the clock was behind the last term, so the counter issued them").isPositive();
    }

    @Test
    void storeClockStepsWithinTheMarginAndBackViolateNoSafetyPropertyOnPostgresql() {
        Assumptions.assumeTrue(PostgresServer.whyStoreClockUnavailable().isEmpty(),
                () -> PostgresServer.whyStoreClockUnavailable().orElseThrow());

        ChaosVerdict verdict = run("postgresql", WITHIN_THE_ASSUMPTIONS, 3);

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(grantsFromTheCounter(FaultKind.STORE_CLOCK_STEP_BACK)).isPositive();
    }

    @Test
    void aStoreClockStepPastTheMarginIsReportedApartAsAnAssumptionBroken() {
        Assumptions.assumeTrue(RedisServer.whyStoreClockUnavailable().isEmpty(),
                () -> RedisServer.whyStoreClockUnavailable().orElseThrow());

        ChaosVerdict verdict = run("redis", PAST_THE_MARGIN, 2);

        assertThat(verdict.safe()).as("an overlap there is expected, not a safety violation: %s", verdict.text())
                .isTrue();
        assertThat(verdict.report().results())
                .extracting(ChaosReport.CheckerResult::checker, ChaosReport.CheckerResult::kind)
                .contains(tuple("exclusion-assumption-broken", Checker.Kind.EXPECTED));
        assertThat(verdict.text()).contains("2 with a fault that breaks an assumption exclusion rests on");
    }

    /**
     * How many grants in trials of {@code fault} issued the previous term plus one: the store's counter, not its clock
     * in microseconds, which at any other time is far ahead of the counter.
     */
    private long grantsFromTheCounter(FaultKind fault) {
        List<HistoryEvent.Trial> trials = history.eventsOf(HistoryEvent.Trial.class);
        List<HistoryEvent.Acquired> grants = history.eventsOf(HistoryEvent.Acquired.class);
        long counted = 0;
        for (int i = 1; i < grants.size(); i++) {
            HistoryEvent.Acquired grant = grants.get(i);
            boolean inFault = trials.stream().anyMatch(t -> t.trial() == grant.trial() && t.fault() == fault);
            if (inFault && grant.term() == grants.get(i - 1).term() + 1) {
                counted++;
            }
        }
        return counted;
    }

    private ChaosVerdict run(String backend, List<FaultKind> faults, int trials) {
        ChaosRunSettings settings = new ChaosRunSettings(backend, trials, SEED, 3, false, Optional.empty(), faults,
                true, dir);
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings), System.out)) {
            history = run.run();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        System.out.println(verdict.text());
        assertThat(verdict.report().trials()).isEqualTo(trials);
        return verdict;
    }
}
