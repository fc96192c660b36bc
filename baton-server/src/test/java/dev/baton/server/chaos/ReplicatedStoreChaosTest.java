package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.PostgresStandbyTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code baton node} processes through the store's own failovers, as {@code baton chaos} runs them: a Redis
 * primary with two replicas and three Sentinels (a forced failover, a replica that lacks the newest grant promoted,
 * the primary killed) and a PostgreSQL primary with a streaming standby (the standby promoted, with and without the
 * newest grant). Each failover is taken in turn; no term may be held by two nodes, terms rise, and no write under a
 * deposed term may be accepted after a newer term's write. The 1,000-trial runs in docs/chaos.md use the same code.
 */
class ReplicatedStoreChaosTest {

    private static final long SEED = 20261127L;
    /** The Sentinel failovers, each taken once. */
    static final List<FaultKind> SENTINEL_FAILOVERS = List.of(FaultKind.SENTINEL_FAILOVER,
            FaultKind.SENTINEL_LAGGING_PROMOTED, FaultKind.SENTINEL_PRIMARY_KILLED);
    /** The standby promotions, each taken once. */
    static final List<FaultKind> STANDBY_PROMOTIONS = List.of(FaultKind.STANDBY_PROMOTED,
            FaultKind.LAGGING_STANDBY_PROMOTED);

    @TempDir
    Path dir;

    @Test
    void threeNodesKeepOneLeaderPerTermThroughSentinelFailovers() {
        List<FaultKind> failovers = SENTINEL_FAILOVERS;
        // One replica of two acknowledges every grant and fenced write (docs/redis-sentinel.md): without it a
        // deposed primary may accept a stale write until the Sentinels reconfigure it, which this checker reports.
        ChaosRunSettings settings = new ChaosRunSettings("redis-sentinel", failovers.size(), SEED, 3, false,
                Optional.empty(), failovers, true, dir, new ChaosRunSettings.SentinelSettings(1,
                        Duration.ofMillis(500), Duration.ofSeconds(2)));

        ChaosVerdict verdict = run(settings);

        assertThat(verdict.report().trials()).isEqualTo(failovers.size());
        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("sentinel-failover", "sentinel-lagging-promoted",
                "sentinel-primary-killed");
    }

    @Test
    void threeNodesKeepOneLeaderPerTermThroughStandbyPromotions() {
        Assumptions.assumeTrue(PostgresStandbyTopology.whyUnavailable().isEmpty(),
                () -> PostgresStandbyTopology.whyUnavailable().orElseThrow());
        List<FaultKind> promotions = STANDBY_PROMOTIONS;
        ChaosRunSettings settings = new ChaosRunSettings("postgresql-standby", promotions.size(), SEED, 3, false,
                Optional.empty(), promotions, true, dir);

        ChaosVerdict verdict = run(settings);

        assertThat(verdict.report().trials()).isEqualTo(promotions.size());
        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("standby-promoted", "lagging-standby-promoted");
    }

    private static ChaosVerdict run(ChaosRunSettings settings) {
        History history;
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings), System.out)) {
            history = run.run();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        System.out.println(verdict.text());
        return verdict;
    }
}
