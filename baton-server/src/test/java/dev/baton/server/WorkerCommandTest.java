package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code baton worker} as a process: start, connect, subscribe, receive detections, SIGTERM exits 0. */
class WorkerCommandTest {

    @Test
    void runsASimulatedWorkerUntilSigterm() throws Exception {
        try (NodeProcess worker = NodeProcess.run("worker", List.of("worker", "--port", "0",
                "--detections-per-second", "20", "--report-interval", "200ms"))) {
            await().atMost(30, TimeUnit.SECONDS).until(() -> worker.last("worker-started").isPresent());
            URI uri = URI.create(worker.last("worker-started").orElseThrow().get("url").asText());

            List<String> received = new CopyOnWriteArrayList<>();
            WebSocket socket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(uri,
                    new WebSocket.Listener() {
                        private final StringBuilder partial = new StringBuilder();

                        @Override
                        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                            partial.append(data);
                            if (last) {
                                received.add(partial.toString());
                                partial.setLength(0);
                            }
                            ws.request(1);
                            return null;
                        }
                    }).get(10, TimeUnit.SECONDS);
            socket.sendText("{\"type\":\"subscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\","
                    + "\"rtspUrl\":\"rtsp://cam\",\"modelUrl\":\"https://m\",\"modelName\":\"cars\",\"modelId\":4}}",
                    true).get(10, TimeUnit.SECONDS);

            await().atMost(10, TimeUnit.SECONDS).until(() ->
                    received.stream().anyMatch(t -> t.contains("\"type\":\"imageDetection\"")));
            await().atMost(10, TimeUnit.SECONDS).until(() -> worker.events("batch").stream()
                    .anyMatch(b -> b.get("detections").asLong() > 0));
            assertThat(worker.events("command")).anySatisfy(c ->
                    assertThat(c.get("message").get("type").asText()).isEqualTo("subscribe"));

            socket.abort();
            worker.sigterm();
            assertThat(worker.awaitExit(Duration.ofSeconds(10))).isZero();
            assertThat(worker.last("worker-stopped")).isPresent();
            assertLinesFollowTheNodeConvention(worker, uri);
        }
    }

    /** As {@code baton node}'s lines: {@code event} first, {@code ts} last with milliseconds, UTC. */
    private static void assertLinesFollowTheNodeConvention(NodeProcess worker, URI uri) {
        assertThat(worker.notJson()).isEmpty();
        assertThat(worker.lines()).isNotEmpty().allSatisfy(line -> {
            List<String> fields = new ArrayList<>();
            line.fieldNames().forEachRemaining(fields::add);
            assertThat(fields.get(0)).as(line.toString()).isEqualTo("event");
            assertThat(fields.get(1)).as(line.toString()).isEqualTo("worker");
            assertThat(fields.get(fields.size() - 1)).as(line.toString()).isEqualTo("ts");
            assertThat(line.get("worker").asText()).isEqualTo(uri.toString());
            assertThat(line.get("ts").asText()).as(line.toString())
                    .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
        });
    }

    @Test
    void badFlagsAreUsageErrors() {
        assertThat(BatonCli.run("worker")).isEqualTo(BatonCli.EXIT_USAGE);
        assertThat(BatonCli.run("worker", "--port", "0", "--detections-per-second", "-1"))
                .isEqualTo(BatonCli.EXIT_USAGE);
        assertThat(BatonCli.run("worker", "--port", "70000")).isEqualTo(BatonCli.EXIT_USAGE);
    }
}
