package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.http.LeaderGate;
import dev.baton.server.internal.api.NodeApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code baton node}'s HTTP flags turned into settings, in process: what is accepted and how each mistake reads. */
class HttpFlagsTest {

    @TempDir
    Path dir;

    @Test
    void httpAloneServesInFailoverModeAtItsOwnAddress() {
        NodeApi.Settings http = settings("--http", "127.0.0.1:8001");

        assertThat(http.host()).isEqualTo("127.0.0.1");
        assertThat(http.port()).isEqualTo(8001);
        assertThat(http.advertiseUrl()).isEqualTo("http://127.0.0.1:8001");
        assertThat(http.mode()).isEqualTo(LeaderGate.Mode.FAILOVER);
        assertThat(http.apiToken()).isEmpty();
    }

    @Test
    void anIpv6LiteralIsBracketedInTheUrl() {
        NodeApi.Settings http = settings("--http", "[::1]:8001");

        assertThat(http.host()).isEqualTo("::1");
        assertThat(http.advertiseUrl()).isEqualTo("http://[::1]:8001");
    }

    @Test
    void advertiseUrlRedirectAndTokenAreTaken() throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "  s3cret\n");

        NodeApi.Settings http = settings("--http", "0.0.0.0:8001", "--advertise-url", "https://node-1.internal:8443/",
                "--leader-redirect", "--api-token-file", token.toString());

        assertThat(http.host()).isEqualTo("0.0.0.0");
        assertThat(http.advertiseUrl()).isEqualTo("https://node-1.internal:8443");
        assertThat(http.mode()).isEqualTo(LeaderGate.Mode.REDIRECT);
        assertThat(http.apiToken()).hasValue("s3cret");
        assertThat(http.toString()).doesNotContain("s3cret");
    }

    @Test
    void anAddressOtherMachinesReachNeedsATokenOrTheExplicitOptOut() {
        assertThatThrownBy(() -> settings("--http", "0.0.0.0:8001", "--advertise-url", "http://node-1:8001"))
                .isInstanceOfSatisfying(CliError.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE);
                    assertThat(e.getMessage()).contains("reachable from other machines").contains("--api-token-file")
                            .contains("--http-allow-anonymous-writes");
                });

        NodeApi.Settings open = settings("--http", "0.0.0.0:8001", "--advertise-url", "http://node-1:8001",
                "--http-allow-anonymous-writes");

        assertThat(open.apiToken()).isEmpty();
        assertThat(settings("--http", "127.0.0.1:8001").apiToken()).isEmpty();
    }

    @Test
    void withoutHttpThereIsNoApi() {
        assertThat(command().settings().http()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--http 8001                                                | --http must be HOST:PORT",
        "--http :8001                                               | --http must be HOST:PORT",
        "--http 127.0.0.1:0                                         | port must be a number from 1 to 65535",
        "--http 127.0.0.1:65536                                     | port must be a number from 1 to 65535",
        "--http 127.0.0.1:http                                      | port must be a number from 1 to 65535",
        "--advertise-url http://a:1                                 | --advertise-url needs --http",
        "--leader-redirect                                          | --leader-redirect needs --http",
        "--api-token-file /nonexistent                              | --api-token-file needs --http",
        "--http-allow-anonymous-writes                              | --http-allow-anonymous-writes needs --http",
        "--http 127.0.0.1:8001 --advertise-url ftp://a:1            | --advertise-url must be an http:// or https://",
        "--http 127.0.0.1:8001 --advertise-url http://a:1/?x=1      | --advertise-url must be an http:// or https://",
        "--http 127.0.0.1:8001 --advertise-url /relative            | --advertise-url must be an http:// or https://",
        "--http 127.0.0.1:8001 --api-token-file /nonexistent/token  | --api-token-file: no such file"})
    void eachMistakeIsAUsageErrorNamingTheFlag(String flags, String message) {
        assertThatThrownBy(() -> settings(flags.split(" ")))
                .isInstanceOfSatisfying(CliError.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"'' | is empty", "'  \n ' | is empty", "'two words' | one token on one line",
        "'line1\nline2' | one token on one line"})
    void aTokenFileMustHoldOneToken(String content, String message) throws IOException {
        Path token = Files.writeString(dir.resolve("token"), content);

        assertThatThrownBy(() -> settings("--http", "127.0.0.1:8001", "--api-token-file", token.toString()))
                .isInstanceOfSatisfying(CliError.class, e -> assertThat(e.getMessage()).contains(message)
                        .doesNotContain("two words"));
    }

    private static NodeApi.Settings settings(String... flags) {
        return command(flags).settings().http().orElseThrow();
    }

    private static NodeCommand command(String... flags) {
        List<String> args = new ArrayList<>(List.of("--backend", "memory", "--group", "g"));
        args.addAll(List.of(flags));
        NodeCommand command = new NodeCommand();
        new CommandLine(command).parseArgs(args.toArray(String[]::new));
        return command;
    }
}
