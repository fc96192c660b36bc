package dev.baton.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** HTTP calls of the work cluster's process tests: one client, a 5 s bound on every call, the body as text. */
final class WorkHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private WorkHttp() {
    }

    static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code PUT /work/items/{id}} of an item with a model URL; the id is percent-encoded already. */
    static HttpResponse<String> putItem(String api, String encodedId, String rtspUrl) {
        String body = "{\"rtspUrl\":\"" + rtspUrl + "\",\"modelId\":42,\"modelName\":\"plates\","
                + "\"modelUrl\":\"https://models.example/plates.onnx\"}";
        return send(HttpRequest.newBuilder(java.net.URI.create(api + "/work/items/" + encodedId))
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }
}
