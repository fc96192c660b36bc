package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Planned departures with real processes: a {@code baton worker} stopped with SIGTERM announces a drain and exits
 * only once its items run on the other workers (each subscribed there before it was stopped here),
 * {@code POST /work/workers/{id}/drain} drains a worker on an operator's word until {@code DELETE} ends it, and a
 * worker killed and started again within {@code --restart-grace} gets its own items back, none of them moved.
 */
class WorkerDrainProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofSeconds(40);
    private static final int ITEMS = 6;

    private final NodeGroup processes = new NodeGroup();
    private final List<NodeProcess> workers = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private String api;

    @AfterEach
    void stop() {
        processes.close();
    }

    private void start(String... nodeFlags) {
        for (int i = 0; i < 3; i++) {
            NodeProcess worker = startWorker("w" + i, 0);
            workers.add(worker);
            urls.add(worker.last("worker-started").orElseThrow().get("url").asText());
        }
        int port = NginxProcess.freeLoopbackPort();
        api = "http://127.0.0.1:" + port;
        List<String> flags = new ArrayList<>(List.of("--backend", "memory", "--group", "cameras", "--profile", "fast",
                "--http", "127.0.0.1:" + port, "--workers", String.join(",", urls)));
        flags.addAll(List.of(nodeFlags));
        processes.start("n1", flags.toArray(String[]::new));
        await().atMost(PATIENCE).ignoreExceptions().until(() -> WorkHttp.send(HttpRequest.newBuilder(URI.create(api
                + "/cluster/leader"))).statusCode() == 200);
        for (int i = 0; i < ITEMS; i++) {
            assertThat(WorkHttp.putItem(api, "display-" + i + "%3Bcam-" + i, "rtsp://cameras/" + i).statusCode())
                    .isEqualTo(201);
        }
        await().atMost(PATIENCE).until(() -> active().size() == ITEMS);
    }

    @Test
    void aWorkerStoppedWithSigtermHandsItsItemsOverBeforeItExits() {
        start();
        NodeProcess leaving = workers.get(0);
        List<String> itemsThere = itemsOn(urls.get(0));
        assertThat(itemsThere).isNotEmpty();

        leaving.sigterm();

        assertThat(leaving.awaitExit(PATIENCE)).as(leaving.describe()).isZero();
        JsonNode drained = leaving.last("worker-drained").orElseThrow(() -> new AssertionError(leaving.describe()));
        assertThat(drained.get("drained").asBoolean()).as(drained.toString()).isTrue();
        for (String item : itemsThere) {
            // Subscribed on another worker before it was stopped on the leaving one, and running there when the
            // leaving one exited.
            Instant stopped = commandAt(leaving, "unsubscribe", item);
            Instant startedElsewhere = workers.subList(1, 3).stream().map(w -> commandAt(w, "subscribe", item))
                    .filter(java.util.Objects::nonNull).min(Instant::compareTo)
                    .orElseThrow(() -> new AssertionError(item + " was not subscribed on another worker"));
            assertThat(stopped).as(item).isNotNull();
            assertThat(startedElsewhere).as(item).isBeforeOrEqualTo(stopped);
        }
        await().atMost(PATIENCE).until(() -> active().size() == ITEMS
                && active().values().stream().noneMatch(urls.get(0)::equals));
    }

    @Test
    void anOperatorDrainsAWorkerOverHttpUntilTheDrainIsDeleted() throws Exception {
        start();
        String drained = urls.get(1);
        String hostPort = URI.create(drained).getAuthority();

        HttpResponse<String> post = WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/workers/"
                + hostPort + "/drain?reason=" + URLEncoder.encode("kernel upgrade", StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(post.statusCode()).as(post.body()).isEqualTo(200);
        assertThat(JSON.readTree(post.body()).get("worker").asText()).isEqualTo(drained);

        await().atMost(PATIENCE).until(() -> active().size() == ITEMS && !active().containsValue(drained));
        JsonNode state = JSON.readTree(WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/state"))).body());
        assertThat(state.get("draining").get(drained).asText()).isEqualTo("kernel upgrade");

        HttpResponse<String> unknown = WorkHttp.send(HttpRequest.newBuilder(URI.create(api
                + "/work/workers/127.0.0.1:1/drain")).POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("unknown_worker", "127.0.0.1:1");

        HttpResponse<String> delete = WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/workers/"
                + URLEncoder.encode(drained, StandardCharsets.UTF_8) + "/drain")).DELETE());
        assertThat(delete.statusCode()).as(delete.body()).isEqualTo(200);
        assertThat(JSON.readTree(delete.body()).get("was_draining").asBoolean()).isTrue();
        JsonNode after = JSON.readTree(WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/state")))
                .body());
        assertThat(after.get("draining").size()).isZero();
    }

    @Test
    void aWorkerKilledAndStartedAgainWithinTheGraceGetsItsOwnItemsBack() {
        start("--restart-grace", "60s");
        String url = urls.get(0);
        List<String> itemsThere = itemsOn(url);
        assertThat(itemsThere).isNotEmpty();
        Map<String, String> before = active();

        workers.get(0).sigkill();  // no drain announced: a crash, or a restart that gave no notice
        assertThat(workers.get(0).awaitExit(PATIENCE)).isNotZero();
        NodeProcess again = startWorker("w0-again", URI.create(url).getPort());

        // The restarted worker reports it runs nothing; the leader subscribes its own items on it again, and none of
        // them went to another worker while it was away.
        await().atMost(PATIENCE).until(() -> itemsThere.stream().allMatch(item -> commandAt(again, "subscribe", item)
                != null) && active().equals(before));
        for (String item : itemsThere) {
            assertThat(workers.subList(1, 3)).as(item).allSatisfy(w -> assertThat(commandAt(w, "subscribe", item))
                    .as(w.name()).isNull());
        }
    }

    private NodeProcess startWorker(String name, int port) {
        NodeProcess worker = processes.run(name, List.of("worker", "--port", Integer.toString(port),
                "--detections-per-second", "0", "--report-interval", "200ms", "--drain-timeout", "30s"));
        await().atMost(PATIENCE).until(() -> worker.last("worker-started").isPresent());
        return worker;
    }

    /** Item -> worker, for the items the leader records as active. */
    private Map<String, String> active() {
        JsonNode state;
        try {
            state = JSON.readTree(WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/state"))).body());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        Map<String, String> active = new TreeMap<>();
        for (JsonNode a : state.path("assignments")) {
            if ("active".equals(a.path("status").asText())) {
                active.put(a.get("item_id").asText(), a.get("worker_id").asText());
            }
        }
        return active;
    }

    private List<String> itemsOn(String worker) {
        return active().entrySet().stream().filter(e -> e.getValue().equals(worker)).map(Map.Entry::getKey).toList();
    }

    /** When {@code worker} printed that it received a {@code type} command for {@code item}, or null. */
    private static Instant commandAt(NodeProcess worker, String type, String item) {
        return worker.events("command").stream()
                .filter(c -> type.equals(c.path("message").path("type").asText())
                        && item.equals(c.path("message").path("payload").path("subscriptionIdentifier").asText()))
                .map(NodeProcess::ts).findFirst().orElse(null);
    }
}
