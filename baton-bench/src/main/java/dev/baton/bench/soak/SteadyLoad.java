package dev.baton.bench.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The soak's steady traffic: work item {@code PUT}s to the Redis cluster's leader at a bounded rate (20 a second,
 * cycling over {@value #ITEMS} ids, so the item count stays fixed and each write replaces an item the workers run),
 * item reads round-robin on the Redis nodes (10 a second) and {@code /cluster/status} reads round-robin on the peer
 * nodes (5 a second). Each kind runs on its own thread and waits for its answer (timeout 5 s), so an overloaded node
 * slows the load down instead of piling requests up. Every outcome is recorded with the node it went to.
 */
final class SteadyLoad implements AutoCloseable {

    /** One request: when it was sent, to which node, a write or not, and whether it got a 2xx. */
    record Outcome(long atNanos, String node, boolean write, boolean ok) {
    }

    /** What {@link #verify} found: items whose last acknowledged write is missing or older, and items running. */
    record Verdict(int expected, int lost, int active, String detail) {
    }

    static final int ITEMS = 200;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<SoakNode> redisNodes;
    private final List<SoakNode> peerNodes;
    private final Supplier<SoakNode> leaderLookup;
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(3, r -> {
        Thread t = new Thread(r, "soak-load");
        t.setDaemon(true);
        return t;
    });
    private final List<Outcome> outcomes = new ArrayList<>();
    private final Map<String, Long> acked = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private volatile SoakNode leader;

    /** Starts the load; {@code leaderLookup} names the Redis cluster's leader now (asked again after a refusal). */
    SteadyLoad(List<SoakNode> redisNodes, List<SoakNode> peerNodes, Supplier<SoakNode> leaderLookup) {
        this.redisNodes = redisNodes;
        this.peerNodes = peerNodes;
        this.leaderLookup = leaderLookup;
        this.leader = leaderLookup.get();
        timers.scheduleAtFixedRate(this::write, 0, 50, TimeUnit.MILLISECONDS);
        timers.scheduleAtFixedRate(this::readItem, 25, 100, TimeUnit.MILLISECONDS);
        timers.scheduleAtFixedRate(this::readPeerStatus, 10, 200, TimeUnit.MILLISECONDS);
    }

    static String itemId(int n) {
        return "display-soak;camera-" + n;
    }

    private void write() {
        long seq = sequence.incrementAndGet();
        String id = itemId((int) (seq % ITEMS));
        SoakNode target = leader;
        String body = JSON.createObjectNode()
                .put("rtspUrl", "rtsp://cameras.soak/camera-" + (seq % ITEMS) + "/seq-" + seq)
                .put("modelId", 42).put("modelName", "plates")
                .put("modelUrl", "https://models.soak/plates.onnx").toString();
        boolean ok = false;
        try {
            HttpRequest request = HttpRequest.newBuilder(url(target, "/work/items/" + encode(id)))
                    .timeout(TIMEOUT).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            ok = status == 200 || status == 201;
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (ok) {
            acked.merge(id, seq, Math::max);
        } else {
            leader = leaderLookup.get();
        }
        record(new Outcome(System.nanoTime(), target.name(), true, ok));
    }

    private void readItem() {
        long n = reads.incrementAndGet();
        SoakNode target = redisNodes.get((int) (n % redisNodes.size()));
        read(target, "/work/items/" + encode(itemId((int) (n % ITEMS))), true);
    }

    private void readPeerStatus() {
        long n = reads.incrementAndGet();
        read(peerNodes.get((int) (n % peerNodes.size())), "/cluster/status", false);
    }

    private void read(SoakNode target, String path, boolean notFoundIsOk) {
        boolean ok;
        try {
            int status = http.send(HttpRequest.newBuilder(url(target, path)).timeout(TIMEOUT).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            // An item not written yet is a correct answer early in the run.
            ok = status == 200 || (notFoundIsOk && status == 404);
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        record(new Outcome(System.nanoTime(), target.name(), false, ok));
    }

    private void record(Outcome outcome) {
        synchronized (outcomes) {
            outcomes.add(outcome);
        }
    }

    /** Every request so far. */
    List<Outcome> outcomes() {
        synchronized (outcomes) {
            return List.copyOf(outcomes);
        }
    }

    /**
     * After the load stopped: reads every item from the leader and counts the ids whose last acknowledged write is
     * missing or was overwritten by an older one (a later write whose answer was lost may have landed: newer is
     * fine), and the items the leader's work cluster reports as running on a worker.
     */
    Verdict verify(SoakNode leaderNow) throws IOException, InterruptedException {
        HttpResponse<String> items = http.send(HttpRequest.newBuilder(url(leaderNow, "/work/items"))
                .timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (items.statusCode() != 200) {
            return new Verdict(acked.size(), acked.size(), 0, "GET /work/items answered " + items.statusCode());
        }
        Map<String, Long> stored = new HashMap<>();
        for (JsonNode entry : JSON.readTree(items.body()).path("items")) {
            String url = entry.path("item").path("rtspUrl").asText("");
            int at = url.lastIndexOf("/seq-");
            stored.put(entry.path("id").asText(), at < 0 ? -1 : Long.parseLong(url.substring(at + 5)));
        }
        List<String> lost = new ArrayList<>();
        acked.forEach((id, seq) -> {
            if (stored.getOrDefault(id, -1L) < seq) {
                lost.add(id);
            }
        });
        int active = 0;
        HttpResponse<String> state = http.send(HttpRequest.newBuilder(url(leaderNow, "/work/state"))
                .timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (state.statusCode() == 200) {
            for (JsonNode a : JSON.readTree(state.body()).path("assignments")) {
                if (a.path("status").asText("").equals("active")) {
                    active++;
                }
            }
        }
        return new Verdict(acked.size(), lost.size(), active,
                lost.isEmpty() ? "" : "lost: " + lost.subList(0, Math.min(5, lost.size())));
    }

    private static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static URI url(SoakNode node, String path) {
        return URI.create("http://127.0.0.1:" + node.httpPort() + path);
    }

    @Override
    public void close() {
        timers.shutdownNow();
        try {
            timers.awaitTermination(TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
