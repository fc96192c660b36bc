package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton node --backend bully}'s flags, parsed and validated in process: what they become, and the one-line
 * usage error that names the flag for every mistake; and the leader stores {@code --leader-store} opens.
 */
class BullyFlagsTest {

    @TempDir
    Path temp;

    @Test
    void bullyFlagsBecomeABullyConfigurationAndTheListenAddressIsTheNodeId() throws IOException {
        Path secret = Files.write(temp.resolve("secret"), "0123456789abcdef0123\n".getBytes(StandardCharsets.UTF_8));

        NodeSettings settings = settings("--listen", "127.0.0.1:7402", "--leader-store",
                "file:" + temp.resolve("leader.json"), "--profile", "fast", "--secret-file", secret.toString());

        assertThat(settings.nodeId()).isEqualTo("127.0.0.1:7402");
        BackendSpec.Bully bully = (BackendSpec.Bully) settings.backend();
        assertThat(bully.listen()).isEqualTo(PeerAddress.parse("127.0.0.1:7402"));
        assertThat(bully.config().pingInterval()).hasMillis(100);
        assertThat(bully.config().holdDown()).hasSeconds(3);
        assertThat(bully.leaderStore()).isEqualTo("file:" + temp.resolve("leader.json"));
        assertThat(new String(bully.secret().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("0123456789abcdef0123");
        assertThat(bully.toString()).doesNotContain("0123456789abcdef");
        assertThat(bully.label()).isEqualTo("bully");
    }

    @Test
    void aPasswordInTheLeaderStoreIsNeverShown() {
        NodeSettings settings = settings("--listen", "127.0.0.1:7402", "--leader-store",
                "postgresql://app:hunter2@db.internal:5432/app");

        BackendSpec.Bully bully = (BackendSpec.Bully) settings.backend();
        assertThat(bully.leaderStoreLabel()).isEqualTo("postgresql://***@db.internal:5432/app");
        assertThat(bully.toString()).doesNotContain("hunter2");
        assertThat(bully.config().pingInterval()).as("default profile").hasSeconds(1);
    }

    @Test
    void missingAndMisplacedFlagsAreNamed() {
        assertUsageError(List.of("--leader-store", "standalone"), "--backend bully needs --listen HOST:PORT");
        assertUsageError(List.of("--listen", "127.0.0.1:7401"), "--backend bully needs --leader-store STORE");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "memcached://x:11211"),
                "--leader-store: unsupported leader store 'memcached://x:11211' (expected standalone, file:PATH");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "file:"), "file: needs a path");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "file:" + temp),
                "is a directory; name the file");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "standalone", "--seeds",
                "127.0.0.1:7401"), "--seeds applies to --backend quorum only");
        assertUsageError(List.of("--listen", "0.0.0.0:7401", "--leader-store", "standalone"), "wildcard address");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "standalone", "--node-id", "x"),
                "--node-id does not apply to --backend bully");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "standalone", "--lease-ttl", "3s"),
                "on --backend bully the timings come from --profile");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--leader-store", "standalone", "--fenced-writes",
                "1s"), "--fenced-writes needs a store");
    }

    @Test
    void theLeaderStoreBelongsToBullyOnly() {
        assertThatUsageError(List.of("node", "--backend", "peer", "--group", "g", "--listen", "127.0.0.1:7401",
                "--seeds", "127.0.0.1:7401", "--cluster-size", "1", "--leader-store", "standalone"))
                .hasMessageContaining("--leader-store applies to --backend bully only");
        assertThatUsageError(List.of("node", "--backend", "memory", "--group", "g", "--leader-store", "standalone"))
                .hasMessageContaining("--leader-store applies to --backend bully only, not to memory");
        assertThatUsageError(List.of("node", "--backend", "memory", "--group", "g", "--listen", "127.0.0.1:7401"))
                .hasMessageContaining("--listen applies to --backend quorum or bully only");
    }

    @Test
    void theNodeStartedLineNamesTheLeaderStoreWithoutItsPassword() {
        NodeSettings settings = settings("--listen", "127.0.0.1:7402", "--profile", "fast", "--leader-store",
                "redis://:hunter2@127.0.0.1:6379/0");

        ObjectNode line = new EventJson("127.0.0.1:7402").nodeStarted(settings, "bully 127.0.0.1:7402", 1234,
                Instant.EPOCH);

        assertThat(line.path("backend").asText()).isEqualTo("bully 127.0.0.1:7402");
        assertThat(line.path("listen").asText()).isEqualTo("127.0.0.1:7402");
        assertThat(line.path("leaderStore").asText()).isEqualTo("redis://***@127.0.0.1:6379/0");
        assertThat(line.path("pingIntervalMs").asLong()).isEqualTo(100);
        assertThat(line.path("holdDownMs").asLong()).isEqualTo(3000);
        assertThat(line.path("sharedSecret").asBoolean()).isFalse();
        assertThat(line.toString()).doesNotContain("hunter2");
    }

    @Test
    void leaderStoresOpenAndADamagedFileIsAUsageError() throws IOException {
        try (LeaderRecordStore standalone = LeaderStores.open("standalone", "g");
             LeaderRecordStore file = LeaderStores.open("file:" + temp.resolve("dir/leader.json"), "g")) {
            assertThat(standalone.describe()).isEqualTo("standalone");
            assertThat(file.describe()).isEqualTo("file:" + temp.resolve("dir/leader.json"));
        }
        Path damaged = Files.writeString(temp.resolve("damaged.json"), "not json");
        assertThatThrownBy(() -> LeaderStores.open("file:" + damaged, "g")).isInstanceOfSatisfying(CliError.class,
                e -> assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE))
                .hasMessageStartingWith("--leader-store: file:" + damaged + " is damaged");
    }

    private NodeSettings settings(String... bullyArgs) {
        List<String> args = new ArrayList<>(List.of("node", "--backend", "bully", "--group", "orders"));
        args.addAll(List.of(bullyArgs));
        return parse(args).settings();
    }

    private void assertUsageError(List<String> bullyArgs, String named) {
        List<String> args = new ArrayList<>(List.of("node", "--backend", "bully", "--group", "orders"));
        args.addAll(bullyArgs);
        assertThatUsageError(args).hasMessageContaining(named)
                .satisfies(e -> assertThat(BatonCli.oneLine(e.getMessage())).isEqualTo(e.getMessage()));
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertThatUsageError(List<String> args) {
        NodeCommand command = parse(args);
        return assertThatThrownBy(command::settings).isInstanceOfSatisfying(CliError.class,
                e -> assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE));
    }

    private static NodeCommand parse(List<String> args) {
        CommandLine cli = new CommandLine(new BatonCli());
        CommandLine.ParseResult result = cli.parseArgs(args.toArray(String[]::new));
        return (NodeCommand) result.subcommand().commandSpec().userObject();
    }
}
