package dev.baton.bench.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The few calls of the node's HTTP API the scenarios make, on one JDK {@link HttpClient}. */
final class NodeApi {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    /** {@code PUT base/work/items/{id}} with a small valid item; returns the status code. */
    int putItem(URI base, String id) throws IOException, InterruptedException {
        String body = JSON.createObjectNode()
                .put("rtspUrl", "rtsp://cameras.example/" + id)
                .put("modelId", 42)
                .put("modelName", "YOLOv8 nano")
                .toString();
        String segment = URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/work/items/" + segment))
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The JSON of a 200 answer to {@code GET uri}; empty on any other status, refused connection or timeout. */
    Optional<JsonNode> getJson(URI uri) throws IOException, InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (ConnectException | HttpTimeoutException e) {
            return Optional.empty();
        }
    }

    /**
     * Waits until every node answers {@code GET /cluster/leader} naming the same leader, and returns its id.
     *
     * @throws IllegalStateException after {@code timeoutSeconds}
     */
    String awaitAgreedLeader(Collection<HttpNode> nodes, long timeoutSeconds)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            String agreed = null;
            boolean all = true;
            for (HttpNode node : nodes) {
                Optional<JsonNode> leader = getJson(node.url().resolve("/cluster/leader"));
                String id = leader.map(l -> l.path("leader_id").asText("")).orElse("");
                if (id.isEmpty() || (agreed != null && !agreed.equals(id))) {
                    all = false;
                    break;
                }
                agreed = id;
            }
            if (all && agreed != null) {
                return agreed;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the nodes did not agree on a leader within " + timeoutSeconds + " s");
    }

    /** A loopback port that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
