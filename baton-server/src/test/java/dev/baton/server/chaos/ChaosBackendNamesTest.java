package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.BatonCli;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code baton chaos --backend quorum} runs the seed-node quorum protocol's nodes, and so does {@code peer}, its old
 * name: the nodes are started with the word the run was given. Nothing is started here; the targets only pick ports.
 */
class ChaosBackendNamesTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "peer"})
    void bothNamesStartQuorumNodes(String backend) {
        ChaosRunSettings settings = new ChaosRunSettings(backend, 1, 7, 3, false, Optional.empty(), List.of(), false,
                dir);

        try (ChaosTarget target = ChaosCommand.open(settings)) {
            assertThat(target.name()).isEqualTo(backend);
            List<String> args = target.nodeArgs(0);
            assertThat(args).containsSequence("--backend", backend).contains("--seeds", "--cluster-size")
                    .doesNotContain("--leader-store");
            assertThat(target.faults()).contains(FaultKind.PARTITION_ONE).doesNotContain(FaultKind.STORE_RESTART);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "serverless"})
    void anUnknownBackendIsAUsageErrorThatNamesQuorumAndItsOldName(String backend) {
        CommandLine cli = new CommandLine(new BatonCli());
        ChaosCommand command = (ChaosCommand) cli.parseArgs("chaos", "--backend", backend).subcommand()
                .commandSpec().userObject();

        assertThatThrownBy(command::call)
                .hasMessageContaining("expected one of redis, redis-cluster, postgresql, quorum, bully")
                .hasMessageContaining("peer: the old name of quorum").hasMessageContaining(backend);
    }
}
