package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.ElectionConfig;
import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three {@code baton node --http} processes on a private Redis, fast profile: a write through a follower is answered
 * 503 with the leader's URL, the leader takes it, and after the leader is SIGKILLed the new leader takes writes and
 * every surviving node lists every item that was acknowledged.
 */
class HttpFailoverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "http-failover";
    private static final String ITEM = "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":1,\"modelName\":\"plates\"}";
    private static final Duration STARTUP = Duration.ofSeconds(40);
    private static final Duration LEASE_TTL = ElectionConfig.fast().leaseTtl();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final NodeGroup nodes = new NodeGroup();
    private final Map<String, String> urls = new LinkedHashMap<>();
    private TestBackend backend;

    private record Answer(int status, Map<String, String> headers, JsonNode body) {
    }

    @BeforeEach
    void startBackend() {
        backend = TestBackend.redis();
    }

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            backend.close();
        }
    }

    @Test
    void writesFollowTheLeaderThroughACrash() {
        for (String name : List.of("n1", "n2", "n3")) {
            int port = freePort();
            urls.put(name, "http://127.0.0.1:" + port);
            nodes.start(name, "--backend", backend.uri(), "--group", GROUP, "--profile", "fast",
                    "--http", "127.0.0.1:" + port);
        }
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(100)).until(() -> nodes.leaders().size() == 1
                && urls.values().stream().allMatch(url -> status(url).path("cluster_size").asInt() == 3));
        NodeProcess first = nodes.leaders().get(0);
        List<NodeProcess> followers = nodes.all().stream().filter(node -> node != first).toList();

        Answer throughFollower = put(urls.get(followers.get(0).name()), "display-1%3Bcamera-7");
        Answer toLeader = put(urls.get(first.name()), "display-1%3Bcamera-7");

        assertThat(throughFollower.status()).as(nodes.describe()).isEqualTo(503);
        assertThat(throughFollower.headers()).containsEntry("x-leader-id", first.name())
                .containsEntry("x-leader-url", urls.get(first.name()));
        assertThat(throughFollower.body().path("error").asText()).isEqualTo("not_leader");
        assertThat(toLeader.status()).isEqualTo(201);
        long firstTerm = toLeader.body().path("term").asLong();
        assertThat(firstTerm).isEqualTo(first.lastAcquiredTerm());

        first.sigkill();
        await().atMost(LEASE_TTL.plusSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() ->
                nodes.leaders().stream().anyMatch(node -> node != first && node.lastAcquiredTerm() > firstTerm));
        NodeProcess second = nodes.leaders().stream().filter(node -> node != first).findFirst().orElseThrow();
        NodeProcess remaining = followers.stream().filter(node -> node != second).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> put(urls.get(second.name()), "display-2%3Bcamera-9").status() / 100 == 2);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                second.name().equals(put(urls.get(remaining.name()), "late").headers().get("x-leader-id")));

        for (NodeProcess node : List.of(second, remaining)) {
            Map<String, JsonNode> items = items(urls.get(node.name()));
            assertThat(items.keySet()).as(node.name()).containsExactly("display-1;camera-7", "display-2;camera-9");
            assertThat(items.get("display-1;camera-7").path("term").asLong()).isEqualTo(firstTerm);
            assertThat(items.get("display-1;camera-7").path("written_by").asText()).isEqualTo(first.name());
            assertThat(items.get("display-2;camera-9").path("term").asLong()).isEqualTo(second.lastAcquiredTerm());
            assertThat(items.get("display-2;camera-9").path("written_by").asText()).isEqualTo(second.name());
        }
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
        assertThat(first.lines().get(0).path("apiUrl").asText()).isEqualTo(urls.get(first.name()));
    }

    private JsonNode status(String url) {
        try {
            return send(HttpRequest.newBuilder(URI.create(url + "/cluster/status")).GET()).body();
        } catch (UncheckedIOException notUpYet) {
            return JSON.createObjectNode();
        }
    }

    private Answer put(String url, String id) {
        return send(HttpRequest.newBuilder(URI.create(url + "/work/items/" + id))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(ITEM)));
    }

    private Map<String, JsonNode> items(String url) {
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        send(HttpRequest.newBuilder(URI.create(url + "/work/items")).GET()).body().path("items")
                .forEach(item -> byId.put(item.path("id").asText(), item));
        return byId;
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            Map<String, String> headers = new HashMap<>();
            response.headers().map().forEach((name, values) -> headers.put(name.toLowerCase(), values.get(0)));
            JsonNode body = response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
            return new Answer(response.statusCode(), headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() {
        return LoopbackPorts.free(1).get(0);
    }
}
