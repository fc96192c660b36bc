package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Whatever the user gets wrong, {@code baton} says what in one line on stderr and exits 2: no stack trace, nothing on
 * stdout (which belongs to the JSON lines).
 */
class CliErrorsTest {

    private final List<NodeProcess> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        processes.forEach(NodeProcess::close);
    }

    @Test
    void unknownFlag() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--bogus"), "--bogus");
    }

    @Test
    void missingRequiredFlag() {
        assertUserError(List.of("node", "--backend", "memory"), "--group");
    }

    @Test
    void badDuration() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--lease-ttl", "3x"), "--lease-ttl",
                "'3x' is not a duration");
    }

    /** Each command's duration flags, with a value whose arithmetic overflowed into a stack trace before. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "node --backend memory --group g --lease-ttl 99999999999h                 | --lease-ttl",
        "node --backend memory --group g --renew-interval 99999999999h            | --renew-interval",
        "node --backend memory --group g --check-interval 99999999999h            | --check-interval",
        "node --backend memory --group g --fenced-writes 99999999999h             | --fenced-writes",
        "demo --timeout 99999999999h                                              | --timeout",
        "worker --port 0 --report-interval 99999999999h                           | --report-interval"})
    void durationsOutOfRange(String args, String flag) {
        assertUserError(List.of(args.split(" ")), flag, "out of range", "from 0 to 168h");
    }

    @Test
    void renewIntervalNotShorterThanLeaseTtl() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--lease-ttl", "3s",
                "--renew-interval", "3s"), "renewInterval", "leaseTtl");
    }

    @Test
    void unknownProfile() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--profile", "turbo"), "profile",
                "turbo");
    }

    @Test
    void unsupportedBackend() {
        assertUserError(List.of("node", "--backend", "zookeeper://x", "--group", "g"), "backend", "zookeeper://x");
    }

    @Test
    void unreachableRedis() {
        String uri = "redis://127.0.0.1:" + closedPort();
        assertUserError(List.of("node", "--backend", uri, "--group", "g", "--profile", "fast"), uri);
    }

    @Test
    void unreachablePostgres() {
        String uri = "postgresql://baton:secret-pw@127.0.0.1:" + closedPort() + "/baton";
        NodeProcess cli = start(List.of("node", "--backend", uri, "--group", "g", "--profile", "fast"));

        assertThat(cli.awaitExit(Duration.ofSeconds(30))).as(cli.stderr()).isEqualTo(BatonCli.EXIT_USAGE);
        assertThat(cli.stderr()).startsWith("baton: error: ").contains("127.0.0.1").doesNotContain("secret-pw")
                .doesNotContain("\tat ");
    }

    @Test
    void malformedPostgresUri() {
        assertUserError(List.of("node", "--backend", "postgresql://nobody@/", "--group", "g"), "--backend");
    }

    @Test
    void peerWithoutListenAddress() {
        assertUserError(List.of("node", "--backend", "peer", "--group", "g", "--seeds", "127.0.0.1:7401",
                "--cluster-size", "1"), "--listen");
    }

    @Test
    void clockRateOutOfRange() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--clock-rate", "2"), "--clock-rate",
                "from 0.9 to 1.1, was 2.0");
    }

    @Test
    void fencedWritesOnPeer() {
        assertUserError(List.of("node", "--backend", "peer", "--group", "g", "--listen", "127.0.0.1:7401",
                "--seeds", "127.0.0.1:7401", "--cluster-size", "1", "--fenced-writes", "100ms"), "--fenced-writes",
                "--backend peer has none");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "node --backend peer --group g --listen 192.0.2.1:7401 --seeds 192.0.2.1:7401 --cluster-size 1",
        "node --backend bully --group g --listen 192.0.2.1:7401 --leader-store standalone"})
    void aPeerPortOtherMachinesReachWithoutASecret(String args) {
        assertUserError(List.of(args.split(" ")), "--listen 192.0.2.1:7401 is reachable from other machines",
                "--secret-file", "--peer-allow-unauthenticated");
    }

    @Test
    void peerPortInUse() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertUserError(List.of("node", "--backend", "peer", "--group", "g", "--listen", address, "--seeds",
                    address, "--cluster-size", "1"), "--listen", "cannot listen on " + address);
        }
    }

    @Test
    void badWorkerUrl() {
        assertUserError(List.of("node", "--backend", "memory", "--group", "g", "--workers",
                "ws://127.0.0.1:9001,http://127.0.0.1:9002"), "--workers", "'http://127.0.0.1:9002' is not a worker URL");
    }

    @Test
    void badWorkerUrlOnPeer() {
        assertUserError(List.of("node", "--backend", "peer", "--group", "g", "--listen", "127.0.0.1:7401",
                "--seeds", "127.0.0.1:7401", "--cluster-size", "1", "--workers", "ws://127.0.0.1:9001,http://127.0.0.1:9002"),
                "--workers", "is not a worker URL");
    }

    @Test
    void missingCommand() {
        assertUserError(List.of(), "missing command");
    }

    @Test
    void helpListsTheCommands() {
        NodeProcess help = start(List.of("--help"));

        assertThat(help.awaitExit(Duration.ofSeconds(30))).isZero();
        assertThat(help.notJson()).anySatisfy(line -> assertThat(line).contains("node"))
                .anySatisfy(line -> assertThat(line).contains("demo"));
    }

    private void assertUserError(List<String> args, String... named) {
        NodeProcess cli = start(args);

        int exit = cli.awaitExit(Duration.ofSeconds(30));

        String stderr = cli.stderr();
        assertThat(exit).as("exit code; stderr:\n%s", stderr).isEqualTo(BatonCli.EXIT_USAGE);
        assertThat(stderr.lines().toList()).as("stderr").hasSize(1);
        assertThat(stderr).startsWith("baton: error: ").contains(named)
                .doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(cli.lines()).as("stdout").isEmpty();
        assertThat(cli.notJson()).as("stdout").isEmpty();
    }

    private NodeProcess start(List<String> args) {
        NodeProcess process = NodeProcess.run("cli", args);
        processes.add(process);
        return process;
    }

    /** A loopback port that nothing listens on (it was free a moment ago, and nothing here binds it again). */
    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
