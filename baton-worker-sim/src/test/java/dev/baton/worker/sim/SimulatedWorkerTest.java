package dev.baton.worker.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The simulated worker on its own, driven by the JDK's WebSocket client. */
class SimulatedWorkerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUBSCRIBE = "{\"type\":\"subscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\","
            + "\"rtspUrl\":\"rtsp://cam\",\"modelUrl\":\"https://m\",\"modelName\":\"cars\",\"modelId\":42,"
            + "\"cropX1\":5,\"cropY1\":6,\"cropX2\":50,\"cropY2\":60}}";

    private SimulatedWorker worker;
    private Client client;

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.socket.abort();
        }
        if (worker != null) {
            worker.close();
        }
    }

    @Test
    void answersRequestStateWithItsCpuAndMemory() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        worker.setCpuUsage(33.5);
        worker.setMemoryUsage(44.5);
        client = Client.connect(worker);
        client.send("{\"type\":\"requestState\"}");
        JsonNode report = client.awaitMessage("stateReport");
        assertThat(report.get("cpuUsage").asDouble()).isEqualTo(33.5);
        assertThat(report.get("memoryUsage").asDouble()).isEqualTo(44.5);
        assertThat(report.get("cameraConnections")).isEmpty();
        assertThat(worker.receivedTypes()).containsExactly("requestState");
    }

    @Test
    void reportsTheCostSetForAnItem() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        client = Client.connect(worker);
        client.send(SUBSCRIBE);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
        worker.setItemCost("1;2", 250.0);
        client.send("{\"type\":\"requestState\"}");

        await().atMost(5, TimeUnit.SECONDS).until(() -> client.last("stateReport") != null
                && client.last("stateReport").get("cameraConnections").path(0).has("cost"));
        assertThat(client.last("stateReport").get("cameraConnections").get(0).get("cost").asDouble())
                .isEqualTo(250.0);
        assertThatThrownBy(() -> worker.setItemCost("1;2", -1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 0");
    }

    @Test
    void keepsSubscriptionsReportsThemAndEmitsDetections() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(200)).detectionsPerSecond(40).start();
        client = Client.connect(worker);
        client.send(SUBSCRIBE);
        await().atMost(5, TimeUnit.SECONDS).until(() -> client.count("imageDetection") >= 3);
        assertThat(worker.subscriptions()).containsExactly("1;2");
        JsonNode report = client.last("stateReport");
        assertThat(report.get("cameraConnections").get(0).toString())
                .isEqualTo("{\"subscriptionIdentifier\":\"1;2\",\"modelId\":42,\"modelName\":\"cars\","
                        + "\"online\":true,\"cropX\":5,\"cropY\":6}");
        JsonNode detection = client.last("imageDetection");
        assertThat(detection.get("subscriptionIdentifier").asText()).isEqualTo("1;2");
        assertThat(detection.get("data").get("modelId").asLong()).isEqualTo(42);
        assertThat(detection.get("data").get("detection").get("licensePlateText").asText()).startsWith("SIM-");

        client.send("{\"type\":\"unsubscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\"}}");
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().isEmpty());
        client.send("{\"type\":\"setSessionId\",\"payload\":{\"displayIdentifier\":\"1\",\"sessionId\":9}}");
        await().atMost(5, TimeUnit.SECONDS).until(() -> "9".equals(worker.sessionOf("1")));
    }

    @Test
    void sendsStateReportsEveryInterval() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(100)).start();
        client = Client.connect(worker);
        await().atMost(5, TimeUnit.SECONDS).until(() -> client.count("stateReport") >= 3);
    }

    @Test
    void killDropsTheConnectionAndRestartListensOnTheSamePortWithoutSubscriptions() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        int port = worker.port();
        client = Client.connect(worker);
        client.send(SUBSCRIBE);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));

        worker.kill();
        await().atMost(5, TimeUnit.SECONDS).until(() -> client.closed.isDone());
        assertThat(worker.isRunning()).isFalse();

        worker.restart();
        assertThat(worker.port()).isEqualTo(port);
        assertThat(worker.subscriptions()).isEmpty();
        client = Client.connect(worker);
        client.send("{\"type\":\"requestState\"}");
        assertThat(client.awaitMessage("stateReport").get("cameraConnections")).isEmpty();
    }

    @Test
    void aSlowWorkerDelaysEveryReply() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        client = Client.connect(worker);
        worker.setReplyDelay(Duration.ofMillis(300));
        long sent = System.nanoTime();
        client.send("{\"type\":\"requestState\"}");
        client.awaitMessage("stateReport");
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void sendsGarbageOnRequest() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).oversizedBytes(4096).start();
        client = Client.connect(worker);
        worker.sendGarbage(SimulatedWorker.Garbage.MALFORMED_JSON);
        worker.sendGarbage(SimulatedWorker.Garbage.UNKNOWN_TYPE);
        worker.sendGarbage(SimulatedWorker.Garbage.OVERSIZED);
        await().atMost(5, TimeUnit.SECONDS).until(() -> client.texts.size() == 3);
        assertThat(client.texts.get(0)).isEqualTo("{\"type\":\"stateReport\",\"cpuUsage\":");
        assertThat(JSON.readTree(client.texts.get(1)).get("type").asText()).isEqualTo("hello");
        assertThat(client.texts.get(2)).hasSizeGreaterThanOrEqualTo(4096);
        assertThat(JSON.readTree(client.texts.get(2)).get("type").asText()).isEqualTo("patchSession");
    }

    @Test
    void refusesACommandOfALeaderOlderThanOneStillConnected() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        client = Client.connect(worker);
        Client successor = Client.connect(worker);
        try {
            client.send(withTerm(SUBSCRIBE, 5));
            await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
            successor.send("{\"type\":\"requestState\",\"leaderTerm\":6}");
            successor.send("{\"type\":\"unsubscribe\",\"leaderTerm\":6,"
                    + "\"payload\":{\"subscriptionIdentifier\":\"1;2\"}}");
            await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().isEmpty());

            client.send(withTerm(SUBSCRIBE, 5)); // the deposed leader's subscribe, after its successor's commands
            client.send("{\"type\":\"requestState\"}"); // no term: carried out, and answered after the refusal
            await().atMost(5, TimeUnit.SECONDS).until(() -> client.count("stateReport") == 2);

            assertThat(worker.refused()).containsExactly(withTerm(SUBSCRIBE, 5));
            assertThat(worker.subscriptions()).isEmpty();
            assertThat(worker.leaderTerm()).isEqualTo(6);
        } finally {
            successor.socket.abort();
        }
    }

    @Test
    void aNewerLeadersTermFencesOnlyWhileItsConnectionIsOpen() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        Client before = Client.connect(worker);
        before.send("{\"type\":\"requestState\",\"leaderTerm\":41}");
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.leaderTerm() == 41);

        // A leader whose store started its terms again (the in-memory store after a restart) is heard once the
        // leader of the higher term has gone.
        before.socket.abort();
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.leaderTerm() == 0);
        client = Client.connect(worker);
        client.send(withTerm(SUBSCRIBE, 1));
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
        assertThat(worker.refused()).isEmpty();
        assertThat(worker.leaderTerm()).isEqualTo(1);
    }

    @Test
    void aLeaderTermThatIsNotAPositiveIntegerIsRefused() throws Exception {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMinutes(1)).start();
        client = Client.connect(worker);
        client.send("{\"type\":\"requestState\",\"leaderTerm\":\"six\"}");
        client.send("{\"type\":\"requestState\",\"leaderTerm\":null}");
        client.awaitMessage("stateReport");
        assertThat(worker.refused()).containsExactly("{\"type\":\"requestState\",\"leaderTerm\":\"six\"}");
        assertThat(client.count("stateReport")).isEqualTo(1);
    }

    private static String withTerm(String command, long term) throws Exception {
        return ((ObjectNode) JSON.readTree(command)).put("leaderTerm", term).toString();
    }

    /** A minimal backend: the JDK WebSocket client, collecting whole text messages. */
    static final class Client implements WebSocket.Listener {
        final List<String> texts = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        WebSocket socket;

        static Client connect(SimulatedWorker worker) throws Exception {
            Client c = new Client();
            c.socket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(worker.uri(), c)
                    .get(5, TimeUnit.SECONDS);
            return c;
        }

        void send(String json) throws Exception {
            socket.sendText(json, true).get(5, TimeUnit.SECONDS);
        }

        long count(String type) {
            return texts.stream().filter(t -> t.contains("\"type\":\"" + type + "\"")).count();
        }

        JsonNode last(String type) throws Exception {
            String found = null;
            for (String t : texts) {
                if (t.contains("\"type\":\"" + type + "\"")) {
                    found = t;
                }
            }
            return found == null ? null : JSON.readTree(found);
        }

        JsonNode awaitMessage(String type) throws Exception {
            await().atMost(5, TimeUnit.SECONDS).until(() -> count(type) > 0);
            return last(type);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                texts.add(partial.toString());
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(null);
        }
    }
}
