package dev.baton.server.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;

/**
 * What the harness asks of a node over its HTTP API: release the leadership (a hand-over on demand), write a work
 * item, read one back. Every call is bounded; a call that gets no answer is reported as such, never retried here,
 * because the history must say what the harness saw.
 */
final class NodeHttp {

    /** A read's answer: whether the node answered, and the value written (null if there is no such item). */
    record Read(boolean answered, String value) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Error codes with which a node says that nothing was written. */
    private static final Set<String> NOTHING_WRITTEN = Set.of("stale_term", "no_leader", "not_leader");
    private static final Duration TIMEOUT = Duration.ofMillis(1500);

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** {@code POST /cluster/leader/release}; whether the node said it released. */
    boolean release(int port) {
        try {
            HttpResponse<String> response = client.send(request(port, "/cluster/leader/release")
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() / 100 == 2;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * {@code PUT /work/items/{id}} with {@code value} as the item's stream URL's last segment. The item carries a
     * model URL, which a node running the work cluster needs to place it on a worker (and any other node keeps).
     */
    HistoryEvent.Outcome putItem(int port, String id, String value) {
        String body = "{\"rtspUrl\":\"rtsp://chaos/" + value + "\",\"modelId\":1,\"modelName\":\"chaos\","
                + "\"modelUrl\":\"https://models.invalid/chaos.onnx\"}";
        try {
            HttpResponse<String> response = client.send(request(port, "/work/items/" + id)
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                return HistoryEvent.Outcome.OK;
            }
            return NOTHING_WRITTEN.contains(errorCode(response.body())) ? HistoryEvent.Outcome.REFUSED : HistoryEvent.Outcome.UNKNOWN;
        } catch (IOException e) {
            return HistoryEvent.Outcome.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return HistoryEvent.Outcome.UNKNOWN;
        }
    }

    /** {@code DELETE /work/items/{id}}; whether the node said the item is gone (deleted now, or there was none). */
    boolean deleteItem(int port, String id) {
        try {
            HttpResponse<String> response = client.send(request(port, "/work/items/" + id).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() / 100 == 2 || response.statusCode() == 404;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code GET /work/items/{id}}: the value written, null if there is no such item, or not answered. */
    Read getItem(int port, String id) {
        try {
            HttpResponse<String> response = client.send(request(port, "/work/items/" + id).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404) {
                return new Read(true, null);
            }
            if (response.statusCode() != 200) {
                return new Read(false, null);
            }
            String url = JSON.readTree(response.body()).path("item").path("rtspUrl").asText();
            return new Read(true, url.substring(url.lastIndexOf('/') + 1));
        } catch (IOException e) {
            return new Read(false, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Read(false, null);
        }
    }

    private static HttpRequest.Builder request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://" + LoopbackPorts.HOST + ":" + port + path)).timeout(TIMEOUT);
    }

    private static String errorCode(String body) {
        try {
            JsonNode json = JSON.readTree(body);
            return json.path("error").asText("");
        } catch (IOException e) {
            return "";
        }
    }

}
