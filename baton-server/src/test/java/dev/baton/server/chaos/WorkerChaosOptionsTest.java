package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.BatonCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton chaos --workers N}: its default per backend, its range, the faults it adds at the end of the list (so
 * that runs without workers draw as before) and the replay command.
 */
class WorkerChaosOptionsTest {

    @TempDir
    Path dir;

    @Test
    void workersDefaultToTwoWhereTheNodesShareAStoreForItems() {
        assertThat(ChaosRunSettings.defaultWorkers("redis")).isEqualTo(2);
        assertThat(ChaosRunSettings.defaultWorkers("postgresql")).isEqualTo(2);
        for (String backend : List.of("quorum", "bully", "etcd", "redis-cluster", "redis-sentinel")) {
            assertThat(ChaosRunSettings.defaultWorkers(backend)).as(backend).isZero();
        }
    }

    @Test
    void theWorkerFaultsComeAfterTheTargetsOwnAndOnlyWithWorkers() {
        ChaosTarget target = new FaultsOnly(List.of(FaultKind.NONE, FaultKind.KILL_NODE));

        assertThat(ChaosRun.drawnFaults(target, 0)).containsExactly(FaultKind.NONE, FaultKind.KILL_NODE);
        assertThat(ChaosRun.drawnFaults(target, 2)).containsExactly(FaultKind.NONE, FaultKind.KILL_NODE,
                FaultKind.PAUSE_AFTER_FENCED_WRITE);
    }

    @Test
    void theReplayRepeatsWorkersThatDifferFromTheBackendsDefault() {
        ChaosRunSettings none = new ChaosRunSettings("redis", 5, 7, 3, false, Optional.empty(), List.of(), false, dir)
                .withWorkers(0);
        ChaosRunSettings two = new ChaosRunSettings("redis", 5, 7, 3, false, Optional.empty(), List.of(), false, dir)
                .withWorkers(2);

        assertThat(ChaosVerdict.of(none, History.of()).replay(2)).endsWith("--trial 2 --workers 0");
        assertThat(ChaosVerdict.of(two, History.of()).replay(2)).endsWith("--trial 2");
    }

    @Test
    void badWorkerCountsAreOneLineUsageErrors() {
        assertUsage(List.of("--backend", "redis", "--workers", "6"), "--workers: expected 0 to 5, got 6");
        assertUsage(List.of("--backend", "redis", "--workers", "-1"), "--workers: expected 0 to 5, got -1");
        assertUsage(List.of("--backend", "bully", "--workers", "2"),
                "--workers: only redis, postgresql and quorum run the work cluster in the harness");
        assertUsage(List.of("--backend", "quorum", "--faults", "replica-restart-empty"),
                "--faults: replica-restart-empty needs workers (--workers 1 or more)");
        assertUsage(List.of("--backend", "bully", "--faults", "replica-restart-empty"),
                "--faults: [replica-restart-empty] not supported on bully");
    }

    @Test
    void quorumWithWorkersWritesItemsAndDrawsAsWithoutThem() {
        // The quorum nodes' work items live in their replicated work store; the worker-only fault needs a store's
        // fenced maps, and replica-restart-empty runs only when named, so a quorum seed draws as it did.
        PeerTarget without = new PeerTarget("quorum", 3, dir);
        PeerTarget with = new PeerTarget("quorum", 3, dir, true);

        assertThat(without.hasItems()).isFalse();
        assertThat(with.hasItems()).isTrue();
        assertThat(ChaosRun.drawnFaults(with, 2)).isEqualTo(ChaosRun.drawnFaults(without, 0))
                .doesNotContain(FaultKind.REPLICA_RESTART_EMPTY, FaultKind.PAUSE_AFTER_FENCED_WRITE);
        assertThat(with.faultsOnRequest()).containsExactly(FaultKind.REPLICA_RESTART_EMPTY);
        assertThat(new PeerTarget("bully", 3, dir).faultsOnRequest()).isEmpty();
        assertThat(ChaosRunSettings.defaultWorkers("quorum")).isZero();
    }

    private void assertUsage(List<String> flags, String message) {
        List<String> args = new ArrayList<>(List.of("chaos"));
        args.addAll(flags);
        args.addAll(List.of("--out", dir.toString()));
        ChaosCommand command = (ChaosCommand) new CommandLine(new BatonCli()).parseArgs(args.toArray(String[]::new))
                .subcommand().commandSpec().userObject();
        assertThatThrownBy(command::call).hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** A target that only names its faults. */
    private record FaultsOnly(List<FaultKind> faults) implements ChaosTarget {
        @Override public String name() { return "test"; }
        @Override public String nodeId(int index) { return "n" + (index + 1); }
        @Override public List<String> nodeArgs(int index) { return List.of(); }
        @Override public boolean hasItems() { return true; }
        @Override public boolean fencesInStore() { return true; }
        @Override public java.time.Duration leaderBound() { return java.time.Duration.ofSeconds(5); }
        @Override public java.time.Duration leaseTtl() { return java.time.Duration.ofSeconds(2); }
        @Override public void inject(FaultKind fault, int target, java.time.Duration latency) { }
        @Override public void heal(FaultKind fault) { }
        @Override public void close() { }
    }
}
