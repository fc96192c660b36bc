package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three {@code baton node --workers} processes on a private Redis (or, in a subclass, another store backend) with four
 * simulated workers (real WebSocket servers in this JVM), fast profile, items written with {@code PUT /work/items}:
 * the items spread evenly; a killed worker's items move to the others; after the leader is SIGKILLed its successor
 * holds the worker connections and every item runs on exactly one worker (the workers' own subscription sets say so);
 * each worker's results reach the node that {@code worker_assignments} names, as its {@code detections} lines show;
 * and after every node and worker restarted, the desired items are all running again.
 */
class WorkClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "cameras";
    private static final int ITEMS = 12;
    private static final Duration STARTUP = Duration.ofSeconds(60);
    /** Generous: the fast profile's offline timeout (3 s) plus a reconcile, on a busy two-core machine. */
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    private final NodeGroup nodes = new NodeGroup();
    private final Map<String, String> urls = new LinkedHashMap<>();
    private final List<SimulatedWorker> workers = new ArrayList<>();
    private TestBackend backend;

    @BeforeEach
    void start() {
        backend = startBackend();
        for (int i = 0; i < 4; i++) {
            workers.add(SimulatedWorker.builder().reportInterval(Duration.ofSeconds(1)).detectionsPerSecond(2)
                    .start());
        }
    }

    @AfterEach
    void stop() {
        try {
            nodes.close();
        } finally {
            workers.forEach(SimulatedWorker::close);
            backend.close();
        }
    }

    /** The store the nodes share: a private Redis here. */
    TestBackend startBackend() {
        return TestBackend.redis();
    }

    @Test
    void itemsSpreadMoveOffADeadWorkerSurviveALeaderCrashAndARestartOfEverything() {
        List<NodeProcess> first = startNodes("n1", "n2", "n3");
        NodeProcess leader = nodes.leaders().get(0);
        for (int i = 0; i < ITEMS; i++) {
            assertThat(WorkHttp.putItem(urls.get(leader.name()), "display-" + i + "%3Bcamera-" + i,
                    "rtsp://cameras/" + i).statusCode()).as(nodes.describe()).isEqualTo(201);
        }

        // Spread evenly, each item on exactly one worker, and every node's /work/state says where.
        await().atMost(CONVERGE).untilAsserted(() -> assertPlacedOnce(workers, 3, 3));
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (NodeProcess node : first) {
                assertStateMatchesTheWorkers(state(node), workers);
            }
        });
        assertThat(leader.events("item-assigned")).hasSize(ITEMS);
        assertResultsReachTheAssignedNodes(first);

        // A killed worker's items move to the three others.
        SimulatedWorker victim = workers.get(1);
        Set<String> victimsItems = victim.subscriptions();
        victim.kill();
        List<SimulatedWorker> alive = workers.stream().filter(SimulatedWorker::isRunning).toList();
        await().atMost(CONVERGE).untilAsserted(() -> assertPlacedOnce(alive, 4, 4));
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(leader.events("worker-offline")).anySatisfy(line ->
                    assertThat(line.path("worker").asText()).isEqualTo(victim.uri().toString()));
            assertThat(leader.events("item-moved")).filteredOn(line -> line.path("from").asText()
                    .equals(victim.uri().toString())).extracting(line -> line.path("item").asText())
                    .containsExactlyInAnyOrderElementsOf(victimsItems);
        });

        // The leader crashes: its successor takes over the connections, nothing lost, nothing twice.
        long firstTerm = leader.lastAcquiredTerm();
        leader.sigkill();
        await().atMost(CONVERGE).until(() -> nodes.leaders().stream()
                .anyMatch(node -> node != leader && node.lastAcquiredTerm() > firstTerm));
        NodeProcess successor = nodes.leaders().stream().filter(node -> node != leader).findFirst().orElseThrow();
        List<NodeProcess> survivors = first.stream().filter(node -> node != leader).toList();
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertPlacedOnce(alive, 4, 4);
            assertThat(alive).allSatisfy(w -> assertThat(w.connections()).as("connections to " + w.uri())
                    .isEqualTo(1));
            JsonNode state = state(successor);
            assertStateMatchesTheWorkers(state, alive);
            for (JsonNode worker : state.path("workers")) {
                if (!worker.path("url").asText().equals(victim.uri().toString())) {
                    assertThat(worker.path("process_id").asText()).isEqualTo(successor.name());
                }
            }
        });
        assertResultsReachTheAssignedNodes(survivors);

        // Everything restarts: the nodes (SIGTERM) and the workers, which come back empty.
        for (NodeProcess node : survivors) {
            node.sigterm();
        }
        for (NodeProcess node : survivors) {
            assertThat(node.awaitExit(Duration.ofSeconds(30))).as(node.describe()).isZero();
        }
        for (SimulatedWorker w : workers) {
            if (w.isRunning()) {
                w.kill();
            }
            w.restart();
        }
        assertThat(workers).allSatisfy(w -> assertThat(w.subscriptions()).isEmpty());
        List<NodeProcess> second = startNodes("n4", "n5", "n6");
        await().atMost(CONVERGE).untilAsserted(() -> assertPlacedOnce(workers, 3, 3));
        await().atMost(CONVERGE).untilAsserted(() -> assertStateMatchesTheWorkers(state(second.get(0)), workers));
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
    }

    /**
     * Starts nodes with every worker, and waits for one leader, for every node's work state to list all of them, and
     * for every worker to be online.
     */
    private List<NodeProcess> startNodes(String... names) {
        String workerList = workers.stream().map(w -> w.uri().toString()).collect(Collectors.joining(","));
        List<NodeProcess> started = new ArrayList<>();
        for (String name : names) {
            int port = NginxProcess.freeLoopbackPort();
            urls.put(name, "http://127.0.0.1:" + port);
            started.add(nodes.start(name, "--backend", backend.uri(), "--group", GROUP, "--profile", "fast",
                    "--http", "127.0.0.1:" + port, "--workers", workerList));
        }
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(200)).until(() ->
                started.stream().filter(NodeProcess::believesItLeads).count() == 1
                        && started.stream().allMatch(node -> slaves(node) == started.size())
                        && onlineWorkers(started.get(0)) == workers.size());
        return started;
    }

    /** Every item is on exactly one of {@code on}, each of which holds {@code min} to {@code max} items. */
    private static void assertPlacedOnce(List<SimulatedWorker> on, int min, int max) {
        Map<String, List<String>> placements = new TreeMap<>();
        for (SimulatedWorker w : on) {
            w.subscriptions().forEach(item -> placements.computeIfAbsent(item, i -> new ArrayList<>())
                    .add(w.uri().toString()));
        }
        assertThat(placements).as("item -> workers running it").hasSize(ITEMS)
                .allSatisfy((item, where) -> assertThat(where).as(item).hasSize(1));
        assertThat(on).allSatisfy(w -> assertThat(w.subscriptions()).as("items on " + w.uri())
                .hasSizeBetween(min, max));
    }

    /** {@code assignments} of a work state lists every item, active, on the worker that runs it. */
    private static void assertStateMatchesTheWorkers(JsonNode state, List<SimulatedWorker> on) {
        Map<String, String> running = new TreeMap<>();
        for (SimulatedWorker w : on) {
            w.subscriptions().forEach(item -> running.put(item, w.uri().toString()));
        }
        Map<String, String> recorded = new TreeMap<>();
        for (JsonNode a : state.path("assignments")) {
            assertThat(a.path("status").asText()).as(a.toString()).isEqualTo("active");
            recorded.put(a.path("item_id").asText(), a.path("worker_id").asText());
        }
        assertThat(recorded).hasSize(ITEMS).isEqualTo(running);
    }

    /**
     * Each running worker's results are counted in the recent {@code detections} lines of the node that
     * {@code worker_assignments} gives it, and of no other node.
     */
    private void assertResultsReachTheAssignedNodes(List<NodeProcess> live) {
        Set<String> producing = workers.stream().filter(w -> w.isRunning() && !w.subscriptions().isEmpty())
                .map(w -> w.uri().toString()).collect(Collectors.toSet());
        await().atMost(CONVERGE).untilAsserted(() -> {
            JsonNode assigned = state(live.get(0)).path("worker_assignments");
            Set<String> seen = new HashSet<>();
            for (NodeProcess node : live) {
                Set<String> expected = new HashSet<>();
                producing.forEach(url -> {
                    if (assigned.path(url).asText().equals(node.name())) {
                        expected.add(url);
                    }
                });
                Set<String> recent = recentDetections(node);
                assertThat(recent).as("workers whose results " + node.name() + " received lately")
                        .isEqualTo(expected);
                seen.addAll(recent);
            }
            assertThat(seen).isEqualTo(producing);
        });
    }

    /** The workers named in this node's {@code detections} lines of the last two seconds. */
    private static Set<String> recentDetections(NodeProcess node) {
        Instant since = Instant.now().minusSeconds(2);
        Set<String> urls = new HashSet<>();
        for (JsonNode line : node.events("detections")) {
            if (NodeProcess.ts(line).isAfter(since)) {
                line.path("perWorker").fieldNames().forEachRemaining(urls::add);
            }
        }
        return urls;
    }

    private int onlineWorkers(NodeProcess node) {
        int online = 0;
        for (JsonNode worker : state(node).path("workers")) {
            online += worker.path("online").asBoolean() ? 1 : 0;
        }
        return online;
    }

    private int slaves(NodeProcess node) {
        try {
            return state(node).path("total_slaves").asInt();
        } catch (UncheckedIOException | AssertionError notUpYet) {
            return 0;
        }
    }

    private JsonNode state(NodeProcess node) {
        HttpResponse<String> response = WorkHttp.send(HttpRequest.newBuilder(URI.create(urls.get(node.name())
                + "/work/state")).GET());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }



}
