package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@code --backend quorum} names the seed-node quorum protocol; {@code peer}, its old name, still does. Both run the
 * same node, and the node repeats the word it was started with (in its first line, its status and its messages).
 */
class QuorumBackendNameTest {

    private final NodeGroup nodes = new NodeGroup();

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "peer"})
    void bothNamesRunAQuorumNodeThatElectsItselfInAClusterOfOne(String name) throws IOException {
        String listen = "127.0.0.1:" + freePort();
        NodeProcess node = nodes.run(name, List.of("node", "--backend", name, "--group", "g", "--profile", "fast",
                "--listen", listen, "--seeds", listen, "--cluster-size", "1"));

        await().atMost(Duration.ofSeconds(30)).until(() -> node.last("leadership-acquired").isPresent()
                || !node.isAlive());
        node.sigterm();
        int exit = node.awaitExit(Duration.ofSeconds(10));

        assertThat(exit).as(node.describe()).isZero();
        JsonNode started = node.lines().get(0);
        assertThat(started.path("event").asText()).isEqualTo("node-started");
        assertThat(started.path("backend").asText()).isEqualTo(name + " " + listen + " (cluster of 1)");
        assertThat(started.path("clusterSize").asInt()).as("the quorum protocol's settings").isEqualTo(1);
        assertThat(started.path("seeds").toString()).isEqualTo("[\"" + listen + "\"]");
        assertThat(node.last("leadership-acquired").orElseThrow().path("leader").asText()).isEqualTo(listen);
    }

    @ParameterizedTest
    @ValueSource(strings = {"quorum", "QUORUM", "peer", " peer "})
    void bothNamesParseIntoTheQuorumBackend(String name) {
        NodeSettings settings = parse("node", "--backend", name, "--group", "g", "--listen", "127.0.0.1:7401",
                "--seeds", "127.0.0.1:7401", "--cluster-size", "1").settings();

        assertThat(settings.backend()).isInstanceOfSatisfying(BackendSpec.Peer.class, peer -> {
            assertThat(peer.name()).isEqualTo(name.strip().toLowerCase(Locale.ROOT));
            assertThat(peer.label()).isEqualTo(peer.name());
            assertThat(peer.config().clusterSize()).isEqualTo(1);
        });
    }

    @Test
    void messagesRepeatTheNameTheOperatorUsed() {
        assertThatThrownBy(() -> parse("node", "--backend", "quorum", "--group", "g", "--listen", "127.0.0.1:7401")
                .settings()).isInstanceOf(CliError.class).hasMessageContaining("--backend quorum needs --seeds");
        assertThatThrownBy(() -> parse("node", "--backend", "peer", "--group", "g", "--listen", "127.0.0.1:7401")
                .settings()).isInstanceOf(CliError.class).hasMessageContaining("--backend peer needs --seeds");
    }

    @Test
    void anUnknownBackendListsQuorumAndItsOldName() {
        assertThatThrownBy(() -> Backends.openStore("zookeeper://x")).isInstanceOf(CliError.class)
                .hasMessageContaining("quorum or bully (peer: the old name of quorum)");
        assertThatThrownBy(() -> Backends.openStore("quorum")).isInstanceOf(CliError.class)
                .hasMessageContaining("--backend quorum has no store");
    }

    private static NodeCommand parse(String... args) {
        CommandLine cli = new CommandLine(new BatonCli());
        return (NodeCommand) cli.parseArgs(args).subcommand().commandSpec().userObject();
    }

    private static int freePort() {
        return LoopbackPorts.free(1).get(0);
    }
}
