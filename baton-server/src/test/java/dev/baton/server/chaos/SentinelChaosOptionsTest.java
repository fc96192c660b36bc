package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.redis.RedisStoreOptions;
import dev.baton.server.BatonCli;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton chaos --backend redis-sentinel --wait-replicas N} and the Sentinels' timings: the nodes' store URI asks
 * for the replica wait, a replayed trial repeats the choices, and the flags are refused elsewhere or out of range.
 */
class SentinelChaosOptionsTest {

    @TempDir
    Path dir;

    @Test
    void withWaitReplicasTheNodesStoreUriWaitsForThatManyReplicas() {
        ChaosRunSettings.SentinelSettings sentinel = new ChaosRunSettings.SentinelSettings(1, Duration.ofMillis(500),
                Duration.ofSeconds(2));
        ChaosRunSettings settings = new ChaosRunSettings("redis-sentinel", 1, 7, 3, false, Optional.empty(),
                List.of(), false, dir, sentinel);

        try (ChaosTarget target = ChaosCommand.open(settings)) {
            List<String> args = target.nodeArgs(0);
            String uri = args.get(args.indexOf("--backend") + 1);
            assertThat(uri).startsWith("redis-sentinel://").contains("sentinelMasterId=")
                    .endsWith("&waitReplicas=1&waitReplicasTimeout=200ms");
            RedisStoreOptions options = RedisStoreOptions.builder().uri(uri).build();
            assertThat(options.waitReplicas()).isEqualTo(1);
            assertThat(options.usesSentinel()).isTrue();
        }
        assertThat(ChaosVerdict.of(settings, History.of()).replay(3))
                .isEqualTo("baton chaos --backend redis-sentinel --seed 7 --trials 1 --trial 3 --wait-replicas 1 "
                        + "--sentinel-down-after 500ms --sentinel-failover-timeout 2000ms");
    }

    @Test
    void theSentinelFlagsAreRefusedOnOtherBackendsAndOutOfRange() {
        assertUsage(List.of("--backend", "redis", "--wait-replicas", "1"),
                "--wait-replicas, --sentinel-down-after and --sentinel-failover-timeout apply to --backend "
                        + "redis-sentinel and redis-sentinel-zombie only");
        assertUsage(List.of("--backend", "redis-sentinel", "--wait-replicas", "3"),
                "--wait-replicas: expected 0 to 2 (the deployment has two replicas), got 3");
        assertUsage(List.of("--backend", "redis-sentinel", "--sentinel-down-after", "50ms"),
                "--sentinel-down-after: expected at least 100ms, got 50ms");
        assertUsage(List.of("--backend", "redis-sentinel", "--sentinel-failover-timeout", "100ms"),
                "--sentinel-failover-timeout: expected at least 500ms, got 100ms");
    }

    private void assertUsage(List<String> flags, String message) {
        String[] args = new String[flags.size() + 3];
        args[0] = "chaos";
        for (int i = 0; i < flags.size(); i++) {
            args[i + 1] = flags.get(i);
        }
        args[flags.size() + 1] = "--out";
        args[flags.size() + 2] = dir.toString();
        ChaosCommand command = (ChaosCommand) new CommandLine(new BatonCli()).parseArgs(args).subcommand()
                .commandSpec().userObject();
        assertThatThrownBy(command::call).hasMessageContaining(message);
    }
}
