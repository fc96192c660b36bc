package dev.baton.server;

import static dev.baton.server.ServerlessProcessChecks.freePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code baton node --backend peer --http} processes (fast profile), started one by one, as an operator would:
 *
 * <ol>
 *   <li>the first node, alone, says why it has no leader in a {@code waiting-for-leader} line (it has heard from
 *       none of the other nodes its first start needs);</li>
 *   <li>once all three run and one leads, a follower's {@code GET /cluster/status} keeps every member's
 *       {@code last_seen} moving, as the leader's does (a follower's copy of the member table used to keep each
 *       member's join time), and its {@code GET /cluster/events} records the leader it follows.</li>
 * </ol>
 */
class PeerFollowerViewProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    private final NodeGroup nodes = new NodeGroup();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stopEverything() {
        nodes.close();
    }

    @Test
    void aLoneNodeSaysWhyAndAFollowersStatusAndEventsStayCurrent() throws Exception {
        List<Integer> ports = freePorts(6);
        List<String> peers = List.of("127.0.0.1:" + ports.get(0), "127.0.0.1:" + ports.get(1),
                "127.0.0.1:" + ports.get(2));
        Map<String, URI> api = new HashMap<>();
        List<NodeProcess> started = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String name = "p" + (i + 1);
            api.put(peers.get(i), URI.create("http://127.0.0.1:" + ports.get(3 + i)));
            started.add(nodes.run(name, List.of("node", "--backend", "peer", "--group", "view", "--profile", "fast",
                    "--listen", peers.get(i), "--seeds", String.join(",", peers), "--cluster-size", "3",
                    "--data-dir", temp.resolve(name).toString(), "--http", "127.0.0.1:" + ports.get(3 + i))));
            if (i == 0) {
                NodeProcess lone = started.get(0);
                await().atMost(STARTUP).until(() -> lone.last("waiting-for-leader").isPresent());
                assertThat(lone.last("waiting-for-leader").orElseThrow().path("reason").asText())
                        .as(lone.describe()).contains("heard from 0 of the 2 other nodes needed");
            }
        }

        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).until(() ->
                nodes.leaders().size() == 1 && started.stream().allMatch(node -> node.last("leader-changed")
                        .map(line -> !line.path("leader").isNull()).orElse(false)));
        NodeProcess leader = nodes.leaders().get(0);
        String leaderId = leader.last("node-started").orElseThrow().path("node").asText();
        long term = leader.lastAcquiredTerm();
        String followerId = peers.stream().filter(peer -> !peer.equals(leaderId)).findFirst().orElseThrow();
        URI follower = api.get(followerId);

        Map<String, Instant> first = new HashMap<>();
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            first.clear();
            first.putAll(lastSeen(get(follower.resolve("/cluster/status"))));
            return first.keySet().containsAll(peers);
        });
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            Map<String, Instant> now = lastSeen(get(follower.resolve("/cluster/status")));
            return peers.stream().allMatch(peer -> now.get(peer).isAfter(first.get(peer)));
        });

        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            for (JsonNode event : get(follower.resolve("/cluster/events")).path("events")) {
                if (event.path("type").asText().equals("leader_elected")
                        && event.path("node_id").asText().equals(leaderId)
                        && event.path("data").path("term").asLong() == term
                        && event.path("data").path("observed_by").asText().equals(followerId)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Each member's {@code last_seen}, by node id. */
    private static Map<String, Instant> lastSeen(JsonNode status) {
        Map<String, Instant> seen = new HashMap<>();
        for (JsonNode member : status.path("members")) {
            if (member.hasNonNull("last_seen")) {
                seen.put(member.path("node_id").asText(), Instant.parse(member.path("last_seen").asText()));
            }
        }
        return seen;
    }

    private JsonNode get(URI uri) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }
}
