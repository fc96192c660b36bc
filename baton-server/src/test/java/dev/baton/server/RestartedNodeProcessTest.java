package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store-backed {@code baton node --http} without {@code --node-id}, killed with SIGKILL and started again with the
 * same flags, is the same member: the registry lists one node, under the same id, not the dead one beside a new one.
 * The lease of its previous run is held under the same id, so the stores grant it to the restarted node at once under
 * a new term, and it leads again without waiting for the old lease to expire.
 */
class RestartedNodeProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration STEP = Duration.ofSeconds(40);
    /** Longer than the test needs to see the restarted node lead: it must not wait for the old lease. */
    private static final String LEASE_TTL = "30s";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final NodeGroup nodes = new NodeGroup();
    private TestBackend backend;

    static Stream<Arguments> backends() {
        return Stream.of(Arguments.of("redis", (Supplier<TestBackend>) TestBackend::redis),
                Arguments.of("postgresql", (Supplier<TestBackend>) TestBackend::postgres));
    }

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            if (backend != null) {
                backend.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aNodeRestartedWithTheSameFlagsIsTheSameMember(String name, Supplier<TestBackend> server) {
        backend = server.get();
        int port = NginxProcess.freeLoopbackPort();
        URI status = URI.create("http://127.0.0.1:" + port + "/cluster/status");
        List<String> flags = List.of("node", "--backend", backend.uri(), "--group", "restart", "--profile", "fast",
                "--lease-ttl", LEASE_TTL, "--http", "127.0.0.1:" + port);

        NodeProcess first = nodes.run("first", flags);
        await().atMost(STEP).until(first::believesItLeads);
        String id = first.last("node-started").orElseThrow().path("node").asText();
        assertThat(id).endsWith(":" + port);
        first.sigkill();
        first.awaitExit(Duration.ofSeconds(10));

        NodeProcess again = nodes.run("again", flags);
        await().atMost(STEP).until(() -> again.last("node-started").isPresent());
        assertThat(again.last("node-started").orElseThrow().path("node").asText()).isEqualTo(id);
        // Polled from the moment the restarted node serves HTTP, well within the dead run's registration TTL: a
        // new id would show the old one beside it.
        Set<String> everListed = new TreeSet<>();
        List<String> members = new ArrayList<>();
        await().atMost(STEP).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            members.clear();
            for (JsonNode member : get(status).path("members")) {
                members.add(member.path("node_id").asText() + " " + member.path("state").asText());
                everListed.add(member.path("node_id").asText());
            }
            return again.believesItLeads() && members.equals(List.of(id + " active"));
        });
        assertThat(again.lastAcquiredTerm()).isGreaterThan(first.lastAcquiredTerm());
        assertThat(everListed).as(again.describe()).containsExactly(id);
    }

    private JsonNode get(URI uri) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }
}
