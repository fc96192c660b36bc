package dev.baton.server.internal.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A JDK HTTP client for API tests: HTTP/1.1, no redirects followed, answers with their JSON parsed. */
final class HttpCalls {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** One answer. */
    record Reply(int status, HttpHeaders headers, String body) {

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }

        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        @Override
        public String toString() {
            return status + " " + headers.map() + " " + body;
        }
    }

    private HttpCalls() {
    }

    static Reply get(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).GET());
    }

    static Reply put(String url, String body, String... headers) {
        return send(withHeaders(HttpRequest.newBuilder(URI.create(url)), headers)
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    static Reply delete(String url, String... headers) {
        return send(withHeaders(HttpRequest.newBuilder(URI.create(url)), headers).DELETE());
    }

    static Reply post(String url, String... headers) {
        return send(withHeaders(HttpRequest.newBuilder(URI.create(url)), headers)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    static Reply send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = CLIENT.send(request.timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code headers} as name, value, name, value, ... */
    static HttpRequest.Builder withHeaders(HttpRequest.Builder request, String... headers) {
        List<String> pairs = new ArrayList<>(List.of(headers));
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            request.header(pairs.get(i), pairs.get(i + 1));
        }
        return request;
    }
}
