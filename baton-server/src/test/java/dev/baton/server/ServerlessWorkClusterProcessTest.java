package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testkit.LoopbackPorts;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A work cluster with no server: three {@code baton node --backend quorum --workers} (or {@code bully}) processes and
 * three simulated workers, items written with {@code PUT /work/items} to the leader. The items spread over the workers;
 * the leader is SIGKILLed; its successor, which caught up from the replicas the nodes keep, takes over the worker
 * connections with every item still where it ran, and no item ever runs on two workers at once (sampled on every
 * poll). An item written to the successor afterwards is assigned too.
 */
class ServerlessWorkClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "cameras";
    private static final int ITEMS = 9;
    private static final Duration STARTUP = Duration.ofSeconds(60);
    /** Generous: a failover plus the fast profile's offline timeout and a reconcile, on a busy two-core machine. */
    private static final Duration CONVERGE = Duration.ofSeconds(40);

    @TempDir
    Path temp;

    private final NodeGroup nodes = new NodeGroup();
    private final Map<NodeProcess, String> urls = new HashMap<>();
    private final List<SimulatedWorker> workers = new ArrayList<>();
    /** Items seen on two workers at the same sample. */
    private final List<String> runTwice = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startWorkers() {
        for (int i = 0; i < 3; i++) {
            workers.add(SimulatedWorker.builder().reportInterval(Duration.ofSeconds(1)).detectionsPerSecond(1)
                    .start());
        }
    }

    @AfterEach
    void stop() {
        try {
            nodes.close();
        } finally {
            workers.forEach(SimulatedWorker::close);
        }
    }

    @ParameterizedTest(name = "--backend {0}")
    @ValueSource(strings = {"quorum", "bully"})
    void threeNodesRunTheItemsWithNoServerAndKeepThemThroughALeaderCrash(String backend) {
        List<NodeProcess> started = startNodes(backend);
        NodeProcess leader = nodes.leaders().get(0);
        for (int i = 0; i < ITEMS; i++) {
            putItem(leader, "display-" + i + "%3Bcamera-" + i, "rtsp://cameras/" + i);
        }
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(placements()).hasSize(ITEMS);
            assertThat(workers).allSatisfy(w -> assertThat(w.subscriptions()).hasSize(ITEMS / workers.size()));
        });
        Map<String, String> before = placements();

        long firstTerm = leader.lastAcquiredTerm();
        leader.sigkill();
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).until(() -> nodes.leaders().stream()
                .anyMatch(node -> node != leader && node.lastAcquiredTerm() > firstTerm));
        NodeProcess successor = nodes.leaders().stream().filter(node -> node != leader).findFirst().orElseThrow();
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(placements()).isEqualTo(before);
            assertThat(workers).allSatisfy(w -> assertThat(w.connections()).as("connections to " + w.uri())
                    .isEqualTo(1));
            JsonNode state = state(successor);
            assertThat(state.path("is_master").asBoolean()).as(state.toString()).isTrue();
            Map<String, String> recorded = new TreeMap<>();
            for (JsonNode a : state.path("assignments")) {
                recorded.put(a.path("item_id").asText(), a.path("worker_id").asText());
            }
            assertThat(recorded).isEqualTo(before);
            for (JsonNode worker : state.path("workers")) {
                assertThat(worker.path("process_id").asText()).isEqualTo(successor.name());
            }
        });

        putItem(successor, "display-late%3Bcamera-late", "rtsp://cameras/late");
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(placements()).hasSize(ITEMS + 1)
                        .containsAllEntriesOf(before));
        assertThat(runTwice).as("items seen on two workers at once").isEmpty();
        assertThat(started).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
    }

    /** Starts three nodes, each with the HTTP API and every worker, and waits for one leader with every worker online. */
    private List<NodeProcess> startNodes(String backend) {
        String workerList = workers.stream().map(w -> w.uri().toString()).collect(Collectors.joining(","));
        List<String> peers = new ArrayList<>();
        for (int port : LoopbackPorts.free(3)) {
            peers.add("127.0.0.1:" + port);
        }
        List<NodeProcess> started = new ArrayList<>();
        for (String peer : peers) {
            int http = NginxProcess.freeLoopbackPort();
            List<String> args = new ArrayList<>(List.of("node", "--backend", backend, "--group", GROUP,
                    "--profile", "fast", "--listen", peer, "--http", "127.0.0.1:" + http, "--workers", workerList));
            if (backend.equals("quorum")) {
                args.addAll(List.of("--seeds", String.join(",", peers), "--cluster-size", "3"));
            } else {
                args.addAll(List.of("--leader-store", "file:" + temp.resolve("leader")));
            }
            NodeProcess node = nodes.run(peer, args);
            urls.put(node, "http://127.0.0.1:" + http);
            started.add(node);
        }
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            List<NodeProcess> leading = started.stream().filter(NodeProcess::believesItLeads).toList();
            assertThat(leading).as(() -> "nodes that believe they lead\n" + nodes.describe()).hasSize(1);
            NodeProcess leader = leading.get(0);
            assertThat(onlineWorkers(leader)).as(() -> "workers online at " + leader.name() + ": "
                    + stateText(leader) + "\n" + nodes.describe()).isEqualTo(workers.size());
        });
        return started;
    }

    /**
     * Writes an item to {@code leader}, as a client does: a {@code 503} (the write did not reach a majority of the
     * replicas within the API's bound, on a busy machine) is tried again; anything but {@code 201} (or {@code 200}
     * once a try that answered {@code 503} had been written after all) fails.
     */
    private void putItem(NodeProcess leader, String encodedId, String rtspUrl) {
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(200)).until(() -> {
            int status = WorkHttp.putItem(urls.get(leader), encodedId, rtspUrl).statusCode();
            assertThat(status).as(nodes.describe()).isIn(200, 201, 503);
            return status != 503; // 200: an earlier try was written after all, and this one replaced it
        });
    }

    /** Item to the worker running it, now; an item on two workers is recorded in {@link #runTwice}. */
    private Map<String, String> placements() {
        Map<String, String> placed = new TreeMap<>();
        for (SimulatedWorker w : workers) {
            for (String item : w.subscriptions()) {
                if (placed.put(item, w.uri().toString()) != null) {
                    runTwice.add(item);
                }
            }
        }
        return placed;
    }

    private int onlineWorkers(NodeProcess node) {
        int online = 0;
        try {
            for (JsonNode worker : state(node).path("workers")) {
                online += worker.path("online").asBoolean() ? 1 : 0;
            }
        } catch (UncheckedIOException | AssertionError notUpYet) {
            return 0;
        }
        return online;
    }

    /** The node's {@code /work/state} as it answers, or why it does not. */
    private String stateText(NodeProcess node) {
        try {
            HttpResponse<String> response = WorkHttp.send(HttpRequest.newBuilder(URI.create(urls.get(node)
                    + "/work/state")).GET());
            return response.statusCode() + " " + response.body();
        } catch (UncheckedIOException e) {
            return "no answer: " + e.getMessage();
        }
    }

    private JsonNode state(NodeProcess node) {
        HttpResponse<String> response = WorkHttp.send(HttpRequest.newBuilder(URI.create(urls.get(node)
                + "/work/state")).GET());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
