package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The hidden fault-harness flags of {@code baton node}, parsed and validated in process. */
class ChaosFlagsTest {

    private static final List<String> PEER = List.of("node", "--backend", "peer", "--group", "g", "--listen",
            "127.0.0.1:7401", "--seeds", "127.0.0.1:7401", "--cluster-size", "1");

    @Test
    void withoutThemANodeRunsAsOperatorsRunIt() {
        NodeSettings settings = settings(List.of("node", "--backend", "memory", "--group", "g"));

        assertThat(settings.chaos()).isEqualTo(ChaosSettings.NONE);
        assertThat(settings.chaos().any()).isFalse();
    }

    @Test
    void everyFlagReachesTheSettingsAndTheNodeStartedLine() {
        NodeSettings settings = settings(List.of("node", "--backend", "memory", "--group", "g", "--chaos-hooks",
                "--clock-rate", "1.01", "--fenced-writes", "50ms", "--fenced-writes-to", "127.0.0.1:7500", "--naive"));

        assertThat(settings.chaos()).isEqualTo(new ChaosSettings(true, 1.01,
                java.util.Optional.of(new ChaosSettings.FenceAddress("127.0.0.1", 7500)), true));
        ObjectNode line = new EventJson("n").nodeStarted(settings, "memory", 1, Instant.EPOCH);
        assertThat(line.path("chaosHooks").asBoolean()).isTrue();
        assertThat(line.path("clockRate").asDouble()).isEqualTo(1.01);
        assertThat(line.path("fencedWritesTo").asText()).isEqualTo("127.0.0.1:7500");
        assertThat(line.path("naive").asBoolean()).isTrue();
    }

    @Test
    void serverlessBackendsMayWriteToAnExternalFencedResource() {
        NodeSettings settings = settings(with(PEER, "--fenced-writes", "100ms", "--fenced-writes-to",
                "127.0.0.1:7500"));

        assertThat(settings.fencedWrites()).contains(Duration.ofMillis(100));
        assertThat(settings.chaos().fencedWritesTo()).isPresent();
        assertUsageError(with(PEER, "--fenced-writes", "100ms"), "--fenced-writes", "--backend peer has none");
    }

    @Test
    void badValuesAreOneLineUsageErrorsNamingTheFlag() {
        List<String> memory = List.of("node", "--backend", "memory", "--group", "g");
        assertUsageError(with(memory, "--clock-rate", "1.2"), "--clock-rate", "0.9", "1.1", "1.2");
        assertUsageError(with(memory, "--clock-rate", "0.5"), "--clock-rate");
        assertUsageError(with(memory, "--clock-rate", "NaN"), "--clock-rate");
        assertUsageError(with(memory, "--fenced-writes-to", "127.0.0.1:7500"), "--fenced-writes-to",
                "needs --fenced-writes");
        assertUsageError(with(memory, "--fenced-writes", "1s", "--fenced-writes-to", "nowhere"),
                "--fenced-writes-to", "HOST:PORT");
        assertUsageError(with(memory, "--fenced-writes", "1s", "--fenced-writes-to", "127.0.0.1:0"),
                "--fenced-writes-to", "port");
    }

    @Test
    void chaosGroupsNamesEachElectionAndItsLines() {
        NodeSettings settings = settings(List.of("node", "--backend", "memory", "--group", "g", "--chaos-hooks",
                "--chaos-groups", "3"));

        assertThat(settings.chaos().groups()).isEqualTo(3);
        assertThat(settings.chaos().groupNames(settings.group())).containsExactly("g", "g-2", "g-3");
        assertThat(ChaosSettings.NONE.groupNames("g")).containsExactly("g");
        ObjectNode line = new EventJson("n").inGroup("g-2").validUntil(5, 9, Instant.EPOCH);
        assertThat(line.fieldNames()).toIterable().containsExactly("event", "node", "group", "term", "deadline", "ts");
        assertThat(new EventJson("n").validUntil(5, 9, Instant.EPOCH).has("group")).isFalse();
        assertUsageError(with(PEER, "--chaos-groups", "2"), "--chaos-groups", "store backends only");
        assertUsageError(List.of("node", "--backend", "memory", "--group", "g", "--chaos-groups", "0"),
                "--chaos-groups");
    }

    @Test
    void theFlagsAreHiddenFromHelp() {
        String help = new CommandLine(new BatonCli()).getSubcommands().get("node").getUsageMessage();

        assertThat(help).doesNotContain("--chaos-hooks", "--clock-rate", "--fenced-writes-to", "--naive",
                "--chaos-groups");
    }

    private static NodeSettings settings(List<String> args) {
        return parse(args).settings();
    }

    private static void assertUsageError(List<String> args, String... named) {
        assertThatThrownBy(() -> parse(args).settings()).isInstanceOfSatisfying(CliError.class, e -> {
            assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE);
            assertThat(e.getMessage()).contains(named).doesNotContain("\n");
        });
    }

    private static NodeCommand parse(List<String> args) {
        CommandLine cli = new CommandLine(new BatonCli());
        return (NodeCommand) cli.parseArgs(args.toArray(String[]::new)).subcommand().commandSpec().userObject();
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }
}
