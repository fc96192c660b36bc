package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An interrupted {@code baton chaos} stops the node processes it started instead of leaving them running. */
@Timeout(120)
class ChaosInterruptedProcessTest {

    @TempDir
    Path dir;

    @Test
    void sigtermStopsEveryNodeTheRunStarted() {
        try (NodeProcess chaos = NodeProcess.run("chaos", List.of("chaos", "--backend", "bully", "--trials", "50",
                "--seed", "7", "--out", dir.toString()))) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> chaos.notJson().stream().anyMatch(line -> line.startsWith("trial 1/50")));
            // On bully the run's only child processes are its three nodes (the leader record is a file).
            List<ProcessHandle> nodes = ProcessHandle.of(chaos.pid()).orElseThrow().children().toList();
            assertThat(nodes).as("the run's node processes").hasSize(3);

            chaos.sigterm();

            assertThat(chaos.awaitExit(Duration.ofSeconds(60))).isNotZero();
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.stream().noneMatch(ProcessHandle::isAlive));
            assertThat(chaos.notJson()).anyMatch(line -> line.startsWith("chaos: interrupted"));
        }
    }
}
