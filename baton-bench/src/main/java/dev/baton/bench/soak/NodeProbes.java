package dev.baton.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the soak records of each node while it runs: {@code GET /cluster/health} once a second (latency and answer),
 * and every 5 s its live threads and heap in use (from {@code /metrics}), its RSS (from {@code /proc}), the leader
 * and term it names ({@code /cluster/leader}) and, on {@code peer}, the connections it refused. Each node is probed
 * on its own thread with a fixed delay, so a node that answers slowly delays only its own next probe.
 */
final class NodeProbes implements AutoCloseable {

    /** One health probe: when it was sent, how long the answer took (the timeout if none came), and whether it was 200. */
    record Health(long atNanos, long latencyNanos, boolean ok) {
    }

    /** One resource sample; -1 where the node did not answer. */
    record Resources(long atNanos, long threads, long heapBytes, long rssBytes, String leader, long term,
            long peerRejected) {
    }

    /** Health probes wait this long for an answer, then count as failed with this latency. */
    static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final ScheduledExecutorService timers;
    private final Map<SoakNode, List<Health>> health = new ConcurrentHashMap<>();
    private final Map<SoakNode, List<Resources>> resources = new ConcurrentHashMap<>();

    /** Starts probing {@code nodes}. */
    NodeProbes(List<SoakNode> nodes) {
        timers = Executors.newScheduledThreadPool(nodes.size() * 2, r -> {
            Thread t = new Thread(r, "soak-probe");
            t.setDaemon(true);
            return t;
        });
        for (SoakNode node : nodes) {
            health.put(node, new ArrayList<>());
            resources.put(node, new ArrayList<>());
            timers.scheduleWithFixedDelay(() -> probeHealth(node), 0, 1, TimeUnit.SECONDS);
            timers.scheduleWithFixedDelay(() -> sample(node), 0, 5, TimeUnit.SECONDS);
        }
    }

    private void probeHealth(SoakNode node) {
        long start = System.nanoTime();
        boolean ok;
        try {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(url(node, "/cluster/health"))
                    .timeout(HEALTH_TIMEOUT).GET().build(), HttpResponse.BodyHandlers.discarding());
            ok = response.statusCode() == 200;
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        long latency = Math.min(System.nanoTime() - start, HEALTH_TIMEOUT.toNanos());
        List<Health> list = health.get(node);
        synchronized (list) {
            list.add(new Health(start, latency, ok));
        }
    }

    private void sample(SoakNode node) {
        long at = System.nanoTime();
        long threads = -1;
        long heap = -1;
        long rejected = -1;
        String leader = "";
        long term = -1;
        try {
            String metrics = get(node, "/metrics");
            if (metrics != null) {
                threads = (long) PrometheusText.sum(metrics, "jvm_threads_live_threads", "");
                heap = (long) PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"");
                if (node.cluster().equals("peer")) {
                    rejected = (long) PrometheusText.sum(metrics, "baton_peer_connections_rejected_total", "");
                }
            }
            String body = get(node, "/cluster/leader");
            if (body != null) {
                JsonNode json = JSON.readTree(body);
                leader = json.path("leader_id").asText("");
                term = json.path("term").asLong(-1);
            }
        } catch (IOException e) {
            // counted as a missing sample
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        List<Resources> list = resources.get(node);
        synchronized (list) {
            list.add(new Resources(at, threads, heap, node.rssBytes().orElse(-1), leader, term, rejected));
        }
    }

    private String get(SoakNode node, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url(node, path))
                .timeout(HEALTH_TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 ? response.body() : null;
    }

    private static URI url(SoakNode node, String path) {
        return URI.create("http://127.0.0.1:" + node.httpPort() + path);
    }

    /** The health probes of {@code node} so far. */
    List<Health> health(SoakNode node) {
        List<Health> list = health.get(node);
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    /** The resource samples of {@code node} so far. */
    List<Resources> resources(SoakNode node) {
        List<Resources> list = resources.get(node);
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    @Override
    public void close() {
        timers.shutdownNow();
        try {
            timers.awaitTermination(HEALTH_TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
