package dev.baton.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Talks to an etcd member through its HTTP/JSON gateway ({@code POST /v3/...}), so the testkit needs no etcd client
 * library: keys and values travel base64-encoded, 64-bit numbers as JSON strings. Only the few fields the
 * {@link EtcdCluster} reads are picked out of the replies.
 */
final class EtcdGateway {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"(\\d+)\"");
    private static final Pattern VALUE = Pattern.compile("\"value\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"");
    private static final Pattern HEALTH = Pattern.compile("\"health\"\\s*:\\s*\"?true\"?");

    /** What {@code /v3/maintenance/status} says: the answering member's id and the leader it knows (0: none). */
    record Status(String memberId, String leaderId) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
            .proxy(HttpClient.Builder.NO_PROXY).build();

    /** True if the member answers {@code GET /health} with {@code "health":"true"} (it has a leader). */
    boolean isHealthy(int port) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(port, "/health")).timeout(TIMEOUT)
                    .GET().build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return response.statusCode() == 200 && HEALTH.matcher(response.body()).find();
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted asking etcd on port " + port + " for its health", e);
        }
    }

    Status status(int port) {
        String reply = post(port, "/v3/maintenance/status", "{}");
        return new Status(field(MEMBER_ID, reply, "member_id"), find(LEADER, reply).orElse("0"));
    }

    void put(int port, String key, String value) {
        post(port, "/v3/kv/put", "{\"key\":\"" + base64(key) + "\",\"value\":\"" + base64(value) + "\"}");
    }

    /** A linearizable read of {@code key}: empty if the key does not exist. */
    Optional<String> get(int port, String key) {
        return find(VALUE, post(port, "/v3/kv/range", "{\"key\":\"" + base64(key) + "\"}"))
                .map(value -> new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8));
    }

    private String post(int port, String path, String json) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri(port, path)).timeout(TIMEOUT)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new IllegalStateException("etcd on port " + port + " answered " + path + " with HTTP "
                        + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("etcd on port " + port + " did not answer " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for etcd on port " + port, e);
        }
    }

    private static URI uri(int port, String path) {
        return URI.create("http://" + EtcdMember.HOST + ":" + port + path);
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String field(Pattern pattern, String reply, String name) {
        return find(pattern, reply).orElseThrow(() -> new IllegalStateException("no " + name + " in " + reply));
    }

    private static Optional<String> find(Pattern pattern, String reply) {
        Matcher matcher = pattern.matcher(reply);
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }
}
