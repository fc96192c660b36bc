package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The id a store-backed node takes without {@code --node-id}: stable across restarts when it serves HTTP. */
class NodeIdentityTest {

    @Test
    void withHttpTheIdIsTheHostNameAndPortAndTheSameOnEveryStart() {
        String first = command("--http", "127.0.0.1:8001").settings().nodeId();
        String again = command("--http", "127.0.0.1:8001").settings().nodeId();

        assertThat(first).isEqualTo(NodeIdentity.hostName(Map.<String, String>of()::get) + ":8001").isEqualTo(again);
    }

    @Test
    void twoNodesOnOneMachineDifferByTheirHttpPort() {
        assertThat(command("--http", "127.0.0.1:8001").settings().nodeId())
                .isNotEqualTo(command("--http", "127.0.0.1:8002").settings().nodeId());
    }

    @Test
    void nodeIdOverridesTheDefault() {
        assertThat(command("--http", "127.0.0.1:8001", "--node-id", "orders-1").settings().nodeId())
                .isEqualTo("orders-1");
    }

    @Test
    void withoutHttpTheIdIsARandomUuidPerStart() {
        String first = command().settings().nodeId();
        String second = command().settings().nodeId();

        assertThat(UUID.fromString(first).toString()).isEqualTo(first);
        assertThat(second).isNotEqualTo(first);
    }

    @Test
    void theHostNameIsLowerCased() {
        assertThat(NodeIdentity.hostName(Map.<String, String>of()::get)).isLowerCase().isNotBlank();
    }

    private static NodeCommand command(String... flags) {
        List<String> args = new ArrayList<>(List.of("--backend", "memory", "--group", "g"));
        args.addAll(List.of(flags));
        NodeCommand command = new NodeCommand();
        command.environment = Map.<String, String>of()::get;
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return command;
    }
}
