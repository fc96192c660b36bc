package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.MessageBus;
import dev.baton.core.time.Clock;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.source.DesiredStateSource;
import dev.baton.work.worker.WorkerEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The work cluster of seed 001 inside a {@code baton node} ({@code --workers}): a {@link WorkCluster} on the node's
 * election and the maps and bus of its store (or, on a serverless backend, of its {@link ServerlessWorkStore}), whose events become JSON lines. The node adds a global detection listener, so the leader
 * spreads the workers' results over the nodes ({@code worker:assignments}) and each node prints, once a second, a
 * {@code detections} line counting the results it received per worker.
 *
 * <p>Which events are printed: {@code worker-online}, {@code worker-offline}, {@code worker-error} (once per worker
 * and message until it is online again, not on every reconnect attempt), {@code item-assigned}, {@code item-moved},
 * {@code item-unassigned} and {@code detections}; see {@link EventJson#work}. Life cycle: {@link #start()} before the
 * election starts, {@link #close()} before the election closes, so a leader stops acting before it releases.
 */
final class NodeWorkCluster implements AutoCloseable {

    /** How often the received results are summed up in a {@code detections} line. */
    static final Duration DETECTIONS_INTERVAL = Duration.ofSeconds(1);

    private final WorkCluster cluster;
    private final Clock clock;
    private final EventJson json;
    private final JsonLines lines;
    private final ScheduledExecutorService timer;
    private final Map<String, String> lastError = new HashMap<>();
    private final Object countsLock = new Object();
    private Map<String, Long> counts = new HashMap<>();

    /**
     * @param source where desired items come from besides the store's ({@link ItemsQuery#open()}), or
     *               {@link DesiredStateSource#NONE}
     */
    NodeWorkCluster(WorkSettings settings, DesiredStateSource source, Election election, FencedMapStore maps, MessageBus bus,
            Clock clock, EventJson json, JsonLines lines) {
        this.cluster = WorkCluster.builder(election, maps, bus).workers(settings.workers()).config(settings.config())
                .source(source).clock(clock).build();
        this.clock = clock;
        this.json = json;
        this.lines = lines;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "baton-node-detections");
            t.setDaemon(true);
            return t;
        });
        cluster.addListener(this::onEvent);
        cluster.addGlobalDetectionListener(detection -> {
            // Counted from the worker:detection_result event, which names the worker.
        });
    }

    /** The work cluster, for the HTTP API. */
    WorkCluster cluster() {
        return cluster;
    }

    /** Starts the cluster (before the election starts, so it sees the first leadership) and the summaries. */
    void start() {
        cluster.start();
        long every = DETECTIONS_INTERVAL.toMillis();
        timer.scheduleAtFixedRate(this::printDetections, every, every, TimeUnit.MILLISECONDS);
    }

    /** Runs on the cluster's listener thread, one event at a time. */
    private void onEvent(WorkClusterEvent event) {
        if (event instanceof WorkClusterEvent.WorkerNotice notice) {
            WorkerEvent worker = notice.event();
            if (worker instanceof WorkerEvent.DetectionResult) {
                synchronized (countsLock) {
                    counts.merge(worker.url(), 1L, Long::sum);
                }
                return;
            }
            if (worker instanceof WorkerEvent.Online) {
                lastError.remove(worker.url());
            } else if (worker instanceof WorkerEvent.WebSocketError error
                    && Objects.equals(lastError.put(worker.url(), error.error()), error.error())) {
                return; // the same failure on every reconnect attempt: said once
            }
        }
        json.work(event, clock.instant()).ifPresent(lines::write);
    }

    private void printDetections() {
        Map<String, Long> since;
        synchronized (countsLock) {
            if (counts.isEmpty()) {
                return;
            }
            since = counts;
            counts = new HashMap<>();
        }
        lines.write(json.detections(since, clock.instant()));
    }

    /** Stops leading (the worker connections close) and prints the last results' summary. */
    @Override
    public void close() {
        timer.shutdownNow();
        cluster.close();
        printDetections();
    }
}
