package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testkit.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code docs/deploy/nginx.conf} in front of three {@code baton node --http} processes (fast profile,
 * lease TTL 3 s) on a private Redis: writes through nginx reach the leader wherever they land first, keep working
 * after the leader is SIGKILLed once a new one is elected, and nothing nginx answered 2xx for is missing from the
 * store. Runs only where nginx is installed; CI installs it (.ci/run).
 *
 * <p>The recovery bound asserted here is loose on purpose (a correctness bound for a loaded CI machine, not a
 * benchmark): the measured time goes to the test's output, and {@code baton-bench nginx-failover} measures it
 * properly.
 */
class NginxFailoverTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "nginx-failover";
    private static final Duration STARTUP = Duration.ofSeconds(40);
    /** Lease TTL (3 s) plus election plus slack for a busy machine; the goal is TTL + 1 s. */
    private static final Duration RECOVERY = Duration.ofSeconds(10);

    private Path nginx;

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final NodeGroup nodes = new NodeGroup();
    private final Map<String, URI> nodeUrls = new LinkedHashMap<>();
    private RedisServer redis;
    private NginxProcess proxy;

    /** One answer through nginx to {@code PUT /work/items/{id}}. */
    private record Write(String id, int status, String upstream, long atNanos) {
        boolean acknowledged() {
            return status >= 200 && status < 300;
        }
    }

    @BeforeEach
    void requireNginx() {
        nginx = NginxProcess.executable().orElse(null);
        assumeTrue(nginx != null, "nginx is not installed (not on PATH, no /usr/sbin/nginx): skipping the nginx"
                + " failover test. Install it (Debian: apt-get install nginx) to run it; CI does.");
    }

    @AfterEach
    void stopEverything() {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } finally {
            try {
                nodes.close();
            } finally {
                if (redis != null) {
                    redis.close();
                }
            }
        }
    }

    @Test
    void writesThroughNginxReachTheNewLeaderAfterTheOldOneIsKilledAndNoAcknowledgedWriteIsLost() throws Exception {
        redis = RedisServer.start();
        List<Integer> ports = new ArrayList<>();
        for (String name : List.of("n1", "n2", "n3")) {
            int port = NginxProcess.freeLoopbackPort();
            ports.add(port);
            nodeUrls.put(name, URI.create("http://127.0.0.1:" + port));
            nodes.start(name, "--backend", redis.uri(), "--group", GROUP, "--profile", "fast",
                    "--http", "127.0.0.1:" + port);
        }
        proxy = NginxProcess.start(nginx, ports, temp.resolve("nginx"));
        JsonNode leader = awaitOneLeaderKnownToAll();
        String firstLeader = leader.path("leader_id").asText();
        long firstTerm = leader.path("term").asLong();

        List<Write> acknowledged = new ArrayList<>();
        List<Write> before = new ArrayList<>();
        for (int i = 1; i <= 9; i++) {
            before.add(put("item-" + i));
        }
        before.add(put("display-1;camera-7"));
        assertThat(before).as("writes before the kill\n%s", describe())
                .allSatisfy(write -> assertThat(write.acknowledged()).as(write.toString()).isTrue());
        assertThat(before).as("some write first landed on a follower and nginx passed it on after its 503")
                .anySatisfy(write -> assertThat(write.upstream()).contains(","));
        acknowledged.addAll(before);

        NodeProcess killed = nodes.all().stream().filter(node -> node.name().equals(firstLeader)).findFirst()
                .orElseThrow(() -> new AssertionError("leader " + firstLeader + " is not one of our nodes"));
        killed.sigkill();
        long killedAt = System.nanoTime();

        List<Write> after = new ArrayList<>();
        int[] next = {10};
        try {
            await().atMost(RECOVERY).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        Write write = put("item-" + next[0]++);
                        after.add(write);
                        return write.acknowledged();
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no write through nginx acknowledged within " + RECOVERY + " of the leader's"
                    + " SIGKILL; answers: " + after + "\n" + describe(), e);
        }
        Write firstAfter = after.get(after.size() - 1);
        System.out.printf("nginx failover: first acknowledged write %.0f ms after the SIGKILL, %d refused before it%n",
                (firstAfter.atNanos() - killedAt) / 1e6, after.size() - 1);
        for (int i = 0; i < 10; i++) {
            after.add(put("item-" + next[0]++));
        }
        List<Write> afterRecovery = after.subList(after.indexOf(firstAfter), after.size());
        assertThat(afterRecovery).as("every write once a new leader is elected")
                .allSatisfy(write -> assertThat(write.acknowledged()).as(write.toString()).isTrue());
        assertThat(after.subList(0, after.indexOf(firstAfter)))
                .as("answers while no leader was known: 503 from a node, or from nginx when the dead node was tried last")
                .allSatisfy(write -> assertThat(write.status()).as(write.toString()).isEqualTo(503));
        acknowledged.addAll(afterRecovery);

        Map<String, JsonNode> stored = storedItems();
        assertThat(stored.keySet()).as("every acknowledged write is in the store")
                .containsAll(acknowledged.stream().map(Write::id).toList());
        assertThat(afterRecovery).as("writes after the kill were made by a new leader under a higher term")
                .allSatisfy(write -> {
                    JsonNode item = stored.get(write.id());
                    assertThat(item.path("term").asLong()).isGreaterThan(firstTerm);
                    assertThat(item.path("written_by").asText()).isNotEqualTo(firstLeader);
                });
        assertThat(stored.get("display-1;camera-7").path("item").path("rtspUrl").asText())
                .isEqualTo("rtsp://cameras.example/display-1;camera-7");
    }

    /** Waits until every node answers {@code GET /cluster/leader} with the same leader; returns that answer. */
    private JsonNode awaitOneLeaderKnownToAll() {
        Map<String, JsonNode> answers = new HashMap<>();
        try {
            await().atMost(STARTUP).pollInterval(Duration.ofMillis(100)).until(() -> {
                answers.clear();
                for (Map.Entry<String, URI> node : nodeUrls.entrySet()) {
                    Optional<JsonNode> leader = getJson(node.getValue().resolve("/cluster/leader"));
                    if (leader.isEmpty()) {
                        return false;
                    }
                    answers.put(node.getKey(), leader.get());
                }
                return answers.values().stream().map(a -> a.path("leader_id").asText()).distinct().count() == 1;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no leader known to all three nodes within " + STARTUP + ": " + answers
                    + "\n" + describe(), e);
        }
        return answers.values().iterator().next();
    }

    private Write put(String id) throws IOException, InterruptedException {
        String body = JSON.createObjectNode()
                .put("rtspUrl", "rtsp://cameras.example/" + id)
                .put("modelId", 42)
                .put("modelName", "YOLOv8 nano")
                .toString();
        HttpRequest request = HttpRequest.newBuilder(proxy.url().resolve("/work/items/" + pathSegment(id)))
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Write(id, response.statusCode(), response.headers().firstValue("X-Baton-Upstream").orElse(""),
                System.nanoTime());
    }

    /** {@code GET /work/items} through nginx, by id. */
    private Map<String, JsonNode> storedItems() throws IOException, InterruptedException {
        JsonNode list = getJson(proxy.url().resolve("/work/items"))
                .orElseThrow(() -> new AssertionError("GET /work/items through nginx failed\n" + proxy.logs()));
        Map<String, JsonNode> byId = new HashMap<>();
        list.path("items").forEach(item -> byId.put(item.path("id").asText(), item));
        return byId;
    }

    private Optional<JsonNode> getJson(URI uri) throws IOException, InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
            return Optional.empty();
        }
    }

    /** Percent-encodes one path segment the way a client must send an item id ({@code ;} becomes {@code %3B}). */
    static String pathSegment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private String describe() {
        return nodes.describe() + (proxy == null ? "" : "\n" + proxy.logs());
    }
}
