package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code baton node --http} where the API cannot be served: the node says why in one line on stderr and exits 2
 * before it ever contends for leadership (no JSON line on stdout, no stack trace).
 */
class HttpCliErrorsTest {

    private final List<NodeProcess> processes = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        processes.forEach(NodeProcess::close);
    }

    @Test
    void aPortInUse() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String address = "127.0.0.1:" + taken.getLocalPort();

            assertUserError(List.of("--http", address), "--http", "cannot listen on " + address);
        }
    }

    @Test
    void anAddressThatIsNotThisMachines() {
        // 192.0.2.1 is TEST-NET-1: binding to it fails locally, nothing is sent anywhere.
        assertUserError(List.of("--http", "192.0.2.1:8001", "--http-allow-anonymous-writes"), "--http",
                "cannot listen on 192.0.2.1:8001");
    }

    @Test
    void anAddressOtherMachinesReachWithoutAToken() {
        assertUserError(List.of("--http", "192.0.2.1:8001"), "--http 192.0.2.1:8001 is reachable from other machines",
                "--api-token-file", "--http-allow-anonymous-writes");
    }

    @Test
    void aMissingTokenFile() {
        assertUserError(List.of("--http", "127.0.0.1:8001", "--api-token-file", "/nonexistent/baton-token"),
                "--api-token-file", "/nonexistent/baton-token");
    }

    private void assertUserError(List<String> flags, String... named) {
        List<String> args = new ArrayList<>(List.of("node", "--backend", "memory", "--group", "g", "--profile",
                "fast"));
        args.addAll(flags);
        NodeProcess cli = NodeProcess.run("cli", args);
        processes.add(cli);

        int exit = cli.awaitExit(Duration.ofSeconds(30));

        String stderr = cli.stderr();
        assertThat(exit).as("exit code; stderr:\n%s", stderr).isEqualTo(BatonCli.EXIT_USAGE);
        assertThat(stderr.lines().toList()).as("stderr").hasSize(1);
        assertThat(stderr).startsWith("baton: error: ").contains(named)
                .doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(cli.lines()).as("stdout").isEmpty();
        assertThat(cli.notJson()).as("stdout").isEmpty();
    }
}
