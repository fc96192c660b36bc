package dev.baton.server.internal.api;

import static dev.baton.server.internal.api.HttpCalls.get;
import static dev.baton.server.internal.api.HttpCalls.put;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.server.internal.api.HttpCalls.Reply;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a hostile or careless client sends, and what it must not achieve: a read that deletes, ids that collapse into
 * one another, error answers that describe the node's libraries, slow bodies that starve the health check.
 */
class HostileRequestsApiTest {

    private static final String ITEM = "{\"rtspUrl\":\"rtsp://cam-1.local/stream\",\"modelId\":1,\"modelName\":\"m\"}";
    private static final String[] JSON = {"Content-Type", "application/json"};
    private static final int SLOW_CLIENTS = 300;
    private static final int HEALTH_BOUND_SECONDS = 2;

    private static InMemoryStore store;
    private static ApiNode node;

    @BeforeAll
    static void start() throws Exception {
        store = new InMemoryStore();
        node = ApiNode.start(store, "hostile", "h1");
        assertThat(node.election().awaitElected(Duration.ofSeconds(10))).isTrue();
    }

    @AfterAll
    static void stop() {
        node.close();
        store.close();
    }

    @Test
    void aGetThatAsksToBeADeleteIsRefusedAndDeletesNothing() {
        assertThat(put(node.url("/work/items/override-me"), ITEM, JSON).status()).isEqualTo(201);

        Reply sneaky = HttpCalls.send(HttpRequest.newBuilder(URI.create(node.url("/work/items/override-me")))
                .header("X-HTTP-Method-Override", "DELETE").GET());

        assertThat(sneaky.status()).as(sneaky.toString()).isEqualTo(400);
        assertThat(sneaky.json().path("error").asText()).isEqualTo("method_override_refused");
        assertThat(get(node.url("/work/items/override-me")).status()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a%ffb", "a%c0b", "a%80b", "a%c3", "a%ed%a0%80b"})
    void idsThatAreNotUtf8AreRefusedRatherThanCollapsed(String rawId) {
        Reply created = put(node.url("/work/items/" + rawId), ITEM, JSON);
        Reply deleted = HttpCalls.delete(node.url("/work/items/" + rawId));

        for (Reply reply : List.of(created, deleted, get(node.url("/work/items/" + rawId)))) {
            assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
            assertThat(reply.json().path("error").asText()).isEqualTo("invalid_item");
            assertThat(reply.json().path("field").asText()).isEqualTo("id");
            assertThat(reply.json().path("message").asText()).contains("not valid UTF-8");
        }
        assertThat(store.maps().mapEntries("hostile", NodeApi.WORK_ITEMS_MAP).join().keySet()).noneMatch(
                id -> id.contains("\uFFFD"));
    }

    @Test
    void controlCharactersInAnyPathAreRefused() {
        Reply item = put(node.url("/work/items/a%01b"), ITEM, JSON);
        Reply other = get(node.url("/cluster/st%01atus"));

        assertThat(item.status()).isEqualTo(400);
        assertThat(item.json().path("field").asText()).isEqualTo("id");
        assertThat(other.status()).isEqualTo(400);
        assertThat(other.body()).contains("control character");
    }

    @Test
    void validUtf8IdsStillWork() {
        Reply created = put(node.url("/work/items/caf%C3%A9-1"), ITEM, JSON);

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().path("id").asText()).isEqualTo("café-1");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"rtspUrl\":\"x\",\"modelId\":1,\"modelName\":\"m\"} {}  | unexpected text after it at line 1, column",
        "{\"rtspUrl\":\"x\",                                       | it ends too early",
        "{\"modelId\":1,\"modelId\":2}                             | the field 'modelId' appears twice",
        "{\"modelId\":1,}                                          | unexpected character '}'",
        "{\"modelId\":nope}                                        | unexpected text where a value belongs"})
    void malformedBodiesAreDescribedWithoutLibraryInternals(String body, String says) {
        Reply reply = put(node.url("/work/items/malformed"), body, JSON);

        assertThat(reply.status()).isEqualTo(400);
        JsonNode json = reply.json();
        assertThat(json.path("error").asText()).isEqualTo("malformed_json");
        assertThat(json.path("message").asText()).startsWith("the body is not one JSON object: ").contains(says)
                .doesNotContain("Feature").doesNotContain("fasterxml").doesNotContain("Source")
                .doesNotContain("`").doesNotContain("JsonNode").doesNotContain("code ");
    }

    /**
     * {@value #SLOW_CLIENTS} clients send a PUT's headers and then its body a byte at a time. The health check must
     * still be answered, within {@value #HEALTH_BOUND_SECONDS} s: only {@link RequestBodies#MAX_BODIES_IN_FLIGHT}
     * bodies are read at once, the rest are answered 503 without waiting for their body, and the threads left serve
     * the reads.
     */
    @Test
    void slowBodiesDoNotStarveTheHealthCheck() throws Exception {
        List<Socket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < SLOW_CLIENTS; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), port());
                OutputStream out = socket.getOutputStream();
                out.write(("PUT /work/items/slow-" + i + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                clients.add(socket);
            }
            dribble(clients);

            Reply health = HttpCalls.send(HttpRequest.newBuilder(URI.create(node.url("/cluster/health")))
                    .timeout(Duration.ofSeconds(HEALTH_BOUND_SECONDS)).GET());

            assertThat(health.status()).as(health.toString()).isEqualTo(200);
            dribble(clients);
        } finally {
            for (Socket socket : clients) {
                socket.close();
            }
        }
    }

    /** One more byte of every slow body (a client the server already answered and closed is skipped). */
    private static void dribble(List<Socket> clients) {
        for (Socket socket : clients) {
            try {
                socket.getOutputStream().write(' ');
            } catch (IOException answeredAndClosed) {
                // the server answered this one already
            }
        }
    }

    private static int port() {
        return URI.create(node.url()).getPort();
    }
}
