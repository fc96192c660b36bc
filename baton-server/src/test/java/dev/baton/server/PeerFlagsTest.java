package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton node --backend peer}'s flags, parsed and validated in process: what they become, and the one-line usage
 * error that names the flag for every mistake (the process tests check the exit code and stderr of a few of them).
 */
class PeerFlagsTest {

    private static final String SEEDS = "127.0.0.1:7401,127.0.0.1:7402,127.0.0.1:7403";

    @TempDir
    Path temp;

    @Test
    void peerFlagsBecomeAQuorumConfigurationAndTheListenAddressIsTheNodeId() throws IOException {
        Path secret = Files.write(temp.resolve("secret"), "0123456789abcdef0123\n".getBytes(StandardCharsets.UTF_8));

        NodeSettings settings = settings("--listen", "127.0.0.1:7402", "--seeds", SEEDS, "--cluster-size", "3",
                "--profile", "fast", "--secret-file", secret.toString(), "--data-dir", temp.resolve("data").toString());

        assertThat(settings.nodeId()).isEqualTo("127.0.0.1:7402");
        assertThat(settings.group()).isEqualTo("orders");
        assertThat(settings.fencedWrites()).isEmpty();
        BackendSpec.Peer peer = (BackendSpec.Peer) settings.backend();
        assertThat(peer.listen()).isEqualTo(PeerAddress.parse("127.0.0.1:7402"));
        assertThat(peer.config().clusterSize()).isEqualTo(3);
        assertThat(peer.config().majority()).isEqualTo(2);
        assertThat(peer.seeds()).extracting(PeerAddress::format)
                .containsExactly("127.0.0.1:7401", "127.0.0.1:7402", "127.0.0.1:7403");
        assertThat(peer.config().heartbeatInterval()).hasMillis(100);
        assertThat(peer.config().ttlTimeout()).hasMillis(1000);
        assertThat(new String(peer.secret().orElseThrow(), StandardCharsets.UTF_8))
                .as("the trailing newline is not part of the secret").isEqualTo("0123456789abcdef0123");
        assertThat(peer.dataDir()).contains(temp.resolve("data").toAbsolutePath());
        assertThat(temp.resolve("data")).isDirectory();
        assertThat(peer.toString()).doesNotContain("0123456789abcdef");
    }

    @Test
    void theDefaultProfileHasTheSeedTimingsAndNoSecretOrDataDir() {
        NodeSettings settings = settings("--listen", "node-a.internal:7400", "--seeds", "node-a.internal:7400",
                "--cluster-size", "1", "--peer-allow-unauthenticated");

        BackendSpec.Peer peer = (BackendSpec.Peer) settings.backend();
        assertThat(settings.nodeId()).isEqualTo("node-a.internal:7400");
        assertThat(peer.config().heartbeatInterval()).hasSeconds(1);
        assertThat(peer.config().ttlTimeout()).hasSeconds(10);
        assertThat(peer.secret()).isEmpty();
        assertThat(peer.dataDir()).isEmpty();
    }

    @Test
    void aNonSeedNodeNeedNotBeAmongTheSeeds() {
        NodeSettings settings = settings("--listen", "127.0.0.1:7405", "--seeds", SEEDS, "--cluster-size", "5");

        assertThat(settings.nodeId()).isEqualTo("127.0.0.1:7405");
    }

    @Test
    void missingPeerFlagsAreNamed() {
        assertUsageError(List.of("--seeds", SEEDS, "--cluster-size", "3"), "needs --listen HOST:PORT");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--cluster-size", "3"), "needs --seeds");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS), "needs --cluster-size N");
    }

    @Test
    void badAddressesAreNamed() {
        assertUsageError(List.of("--listen", "127.0.0.1", "--seeds", SEEDS, "--cluster-size", "3"), "--listen",
                "has no port");
        assertUsageError(List.of("--listen", "127.0.0.1:99999", "--seeds", SEEDS, "--cluster-size", "3"),
                "--listen", "outside 1..65535");
        assertUsageError(List.of("--listen", "127.0.0.1:x", "--seeds", SEEDS, "--cluster-size", "3"), "--listen",
                "not a number");
        assertUsageError(List.of("--listen", "0.0.0.0:7401", "--seeds", SEEDS, "--cluster-size", "3"), "--listen",
                "wildcard");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", "127.0.0.1:7401,,127.0.0.1:7402",
                "--cluster-size", "3"), "--seeds", "empty entry");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", "127.0.0.1:7401,127.0.0.1",
                "--cluster-size", "3"), "--seeds", "has no port");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", "127.0.0.1:7401,127.0.0.1:7401",
                "--cluster-size", "3"), "--seeds", "127.0.0.1:7401 twice");
    }

    @Test
    void clusterSizeMustBeAtLeastOneAndHoldTheSeeds() {
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "0"),
                "--cluster-size must be at least 1, was 0");
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "2"),
                "--seeds names 3 nodes but --cluster-size is 2");
    }

    @Test
    void anUnknownProfileIsNamed() {
        assertUsageError(List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "3",
                "--profile", "turbo"), "profile", "turbo");
    }

    @Test
    void unusableSecretFilesAreNamed() throws IOException {
        List<String> base = List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "3");
        assertUsageError(with(base, "--secret-file", temp.resolve("absent").toString()), "--secret-file",
                "no such file");
        assertUsageError(with(base, "--secret-file", temp.toString()), "--secret-file", "is a directory");
        Path shortSecret = Files.writeString(temp.resolve("short"), "tooshort\n");
        assertUsageError(with(base, "--secret-file", shortSecret.toString()), "--secret-file", "holds 8 bytes",
                "at least 16");
    }

    @Test
    void unusableDataDirectoriesAreNamed() throws IOException {
        List<String> base = List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "3");
        Path file = Files.writeString(temp.resolve("a-file"), "not a directory");
        assertUsageError(with(base, "--data-dir", file.toString()), "--data-dir", "is not a directory");
        assertUsageError(with(base, "--data-dir", file.resolve("below").toString()), "--data-dir",
                "cannot create");
    }

    @Test
    void storeOnlyFlagsAreRefusedOnPeer() {
        List<String> base = List.of("--listen", "127.0.0.1:7401", "--seeds", SEEDS, "--cluster-size", "3");
        assertUsageError(with(base, "--fenced-writes", "100ms"), "--fenced-writes", "--backend peer has none");
        assertUsageError(with(base, "--node-id", "n1"), "--node-id", "--listen address");
        assertUsageError(with(base, "--lease-ttl", "3s"), "--lease-ttl", "store backends");
        assertUsageError(with(base, "--renew-interval", "1s"), "--renew-interval", "store backends");
        assertUsageError(with(base, "--check-interval", "1s"), "--check-interval", "store backends");
    }

    @Test
    void peerFlagsAreRefusedOnAStoreBackend() {
        assertThatUsageError(List.of("node", "--backend", "redis://:pw@127.0.0.1:6379", "--group", "g",
                "--listen", "127.0.0.1:7401", "--cluster-size", "3"))
                .hasMessageContaining("--listen, --cluster-size apply to --backend quorum only")
                .hasMessageContaining("redis://***@127.0.0.1:6379").hasMessageNotContaining("pw");
        assertThatUsageError(List.of("node", "--backend", "memory", "--group", "g", "--data-dir", "/tmp/x"))
                .hasMessageContaining("--data-dir applies to --backend quorum only");
    }

    @Test
    void theStoreBackendsKeepTheirSettings() {
        NodeSettings settings = parse(List.of("node", "--backend", "memory", "--group", "g", "--node-id", "n1",
                "--profile", "fast", "--fenced-writes", "100ms")).settings();

        assertThat(settings.nodeId()).isEqualTo("n1");
        assertThat(settings.backend()).isInstanceOfSatisfying(BackendSpec.Store.class,
                store -> assertThat(store.config().leaseTtl()).hasSeconds(3));
        assertThat(settings.fencedWrites()).isPresent();
    }

    private NodeSettings settings(String... peerArgs) {
        List<String> args = new ArrayList<>(List.of("node", "--backend", "peer", "--group", "orders"));
        args.addAll(List.of(peerArgs));
        return parse(args).settings();
    }

    private void assertUsageError(List<String> peerArgs, String... named) {
        List<String> args = new ArrayList<>(List.of("node", "--backend", "peer", "--group", "orders"));
        args.addAll(peerArgs);
        AbstractThrowableAssert<?, ? extends Throwable> error = assertThatUsageError(args);
        for (String text : named) {
            error.hasMessageContaining(text);
        }
        error.satisfies(e -> assertThat(BatonCli.oneLine(e.getMessage())).isEqualTo(e.getMessage()));
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertThatUsageError(List<String> args) {
        NodeCommand command = parse(args);
        return assertThatThrownBy(command::settings).isInstanceOfSatisfying(CliError.class,
                e -> assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE));
    }

    private static NodeCommand parse(List<String> args) {
        BatonCli root = new BatonCli();
        CommandLine cli = new CommandLine(root);
        CommandLine.ParseResult result = cli.parseArgs(args.toArray(String[]::new));
        return (NodeCommand) result.subcommand().commandSpec().userObject();
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }
}
