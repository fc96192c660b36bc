package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every fault kind runs on real processes in the build: the union of the faults the build's chaos campaigns take must
 * be every {@link FaultKind} but those in {@link #NOT_IN_THE_BUILD}, so that a new kind that no campaign runs fails
 * the build instead of going untested. The campaigns are read from the tests that run them (the backends and trials of
 * {@link ChaosHarnessTest}'s source, the fault lists the others run), not restated here.
 *
 * <p>Some of those tests skip themselves where their servers cannot start (etcd, a PostgreSQL standby, a store on a
 * steppable clock); the rule counts what the build runs where its servers are installed, as on the build machines.
 */
class EveryFaultKindRunsInTheBuildTest {

    /** Kinds the build does not run, each with the reason. Empty: the build runs every kind. */
    private static final Map<FaultKind, String> NOT_IN_THE_BUILD = Map.of();

    @TempDir
    Path dir;

    @Test
    void theBuildsCampaignsRunEveryFaultKind() {
        Set<FaultKind> run = EnumSet.noneOf(FaultKind.class);
        harnessCampaigns().forEach(run::addAll);
        assertThat(EtcdChaosTest.TRIALS).as("etcd's faults taken in turn").isGreaterThanOrEqualTo(
                EtcdTarget.FAULTS.size());
        run.addAll(EtcdTarget.FAULTS);
        run.addAll(ChaosHarnessTest.WITH_WORKERS);
        run.addAll(ReplicatedStoreChaosTest.SENTINEL_FAILOVERS);
        run.addAll(ReplicatedStoreChaosTest.STANDBY_PROMOTIONS);
        run.addAll(StoreClockChaosTest.WITHIN_THE_ASSUMPTIONS);
        run.addAll(StoreClockChaosTest.PAST_THE_MARGIN);
        run.addAll(OnRequestChaosTest.STRAGGLERS);
        run.addAll(OnRequestChaosTest.ZOMBIE);
        run.addAll(OnRequestChaosTest.PAIRED);
        run.addAll(OnRequestChaosTest.AMNESIA);

        Set<FaultKind> expected = EnumSet.allOf(FaultKind.class);
        expected.removeAll(NOT_IN_THE_BUILD.keySet());
        assertThat(run).as("fault kinds the build's chaos campaigns run").containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * The faults of each of {@link ChaosHarnessTest}'s campaigns: every fault of the backend, taken in turn, so each
     * runs if the campaign has at least as many trials as the backend has faults.
     */
    private List<List<FaultKind>> harnessCampaigns() {
        List<List<FaultKind>> campaigns = new ArrayList<>();
        for (String row : harnessRows()) {
            String[] columns = row.split(",");
            String backend = columns[0].strip();
            int trials = Integer.parseInt(columns[1].strip());
            List<FaultKind> faults = faultsOf(backend);
            assertThat(trials).as("%s's faults taken in turn", backend).isGreaterThanOrEqualTo(faults.size());
            campaigns.add(faults);
        }
        assertThat(campaigns).isNotEmpty();
        return campaigns;
    }

    private static List<String> harnessRows() {
        Method method = Arrays.stream(ChaosHarnessTest.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(CsvSource.class)).findFirst()
                .orElseThrow(() -> new AssertionError("ChaosHarnessTest has no @CsvSource campaign list"));
        return List.of(method.getAnnotation(CsvSource.class).value());
    }

    private List<FaultKind> faultsOf(String backend) {
        return switch (backend) {
            case "redis" -> RedisTarget.FAULTS;
            case "redis-cluster" -> RedisClusterTarget.FAULTS;
            case "postgresql" -> PostgresTarget.FAULTS;
            case "etcd" -> EtcdTarget.FAULTS;
            case "redis-sentinel" -> RedisSentinelTarget.FAULTS;
            case "postgresql-standby" -> PostgresStandbyTarget.FAULTS;
            case "redis-sentinel-zombie" -> SentinelZombieTarget.FAULTS;
            case "quorum", "peer", "bully" -> new PeerTarget(backend, 3, dir).faults();
            default -> throw new AssertionError("no fault list for backend " + backend);
        };
    }
}
