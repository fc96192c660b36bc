package dev.baton.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedValue;
import dev.baton.core.time.Clock;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code --chaos-hooks}, {@code pause-after-fenced-write}: the work cluster's maps, with a switch that freezes the
 * node (SIGSTOP of its own process) right after the store accepted the leader's fenced write of an assignment and
 * before the work cluster goes on to send the worker its {@code subscribe}. The leader's term was newest when the
 * store took the write; by the time the harness lets the node go on (SIGCONT), another node leads, and the command
 * that goes out then is a deposed leader's: the worker must refuse it, or the item runs on two workers.
 *
 * <p>The node prints a {@code chaos-command} line naming the item and the term, with its real {@code mono}, just
 * before it stops itself, so the harness knows it is frozen. Fires once per arming.
 */
final class WorkWritePause implements FencedMapStore {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The work cluster's map of where each item runs, under any key prefix. */
    private static final String ASSIGNMENTS = "worker:actual_subscriptions";
    /** The statuses of an assignment record written just before a {@code subscribe} goes out. */
    private static final Set<String> BEFORE_SUBSCRIBE = Set.of("pending", "recovering");

    /** A pause between two clock readings at least this long means the process was stopped and let go. */
    private static final long STOPPED_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    /** How long to wait for the stop to land before going on without it. */
    private static final long STOP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final FencedMapStore delegate;
    private final EventJson json;
    private final JsonLines lines;
    private final Clock clock;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final Runnable stop;

    WorkWritePause(FencedMapStore delegate, EventJson json, JsonLines lines, Clock clock) {
        this(delegate, json, lines, clock, null);
    }

    /** With {@code stop} in place of the SIGSTOP of this process (null: the SIGSTOP), for tests. */
    WorkWritePause(FencedMapStore delegate, EventJson json, JsonLines lines, Clock clock, Runnable stop) {
        this.delegate = delegate;
        this.json = json;
        this.lines = lines;
        this.clock = clock;
        this.stop = stop != null ? stop : this::signalStop;
    }

    /** Freezes the node after the next accepted assignment write. */
    void arm() {
        armed.set(true);
    }

    /** Disarms it; whether it was still armed (no assignment was written since). */
    boolean withdraw() {
        return armed.getAndSet(false);
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedPut(String group, String map, String key, String nodeId, long term,
            byte[] value) {
        CompletableFuture<FencedMapWrite> write = delegate.fencedPut(group, map, key, nodeId, term, value);
        if (!map.endsWith(ASSIGNMENTS) || !beforeSubscribe(value)) {
            return write;
        }
        return write.thenApply(result -> {
            if (result.accepted() && armed.compareAndSet(true, false)) {
                stopSelf(key, term);
            }
            return result;
        });
    }

    private static boolean beforeSubscribe(byte[] value) {
        try {
            JsonNode record = MAPPER.readTree(value);
            return BEFORE_SUBSCRIBE.contains(record.path("status").asText());
        } catch (IOException e) {
            return false;
        }
    }

    /** Prints the line, then SIGSTOPs this process; returns once something sent SIGCONT. */
    private void stopSelf(String item, long term) {
        long mono = System.nanoTime();
        ObjectNode line = json.chaosCommand("pause-after-fenced-write", clock.instant());
        JsonNode ts = line.remove("ts");
        line.put("item", item).put("term", term).put("mono", mono);
        line.set("ts", ts);
        lines.write(line);
        stop.run();
    }

    /**
     * SIGSTOP of this process; returns once something sent SIGCONT. It does not wait for the {@code kill} process:
     * the JVM learns that it exited only some milliseconds after the node goes on, and by then the node's election has
     * reported the lost lease and its work cluster has stopped, so the queued {@code subscribe} would never go out.
     * It watches the clock instead, and goes on at the first jump longer than {@link #STOPPED_GAP_NANOS}: the moment
     * the node was let go.
     */
    private void signalStop() {
        try {
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid()))
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            lines.write(json.error("pause-after-fenced-write could not stop the node: " + e.getMessage(),
                    clock.instant()));
            return;
        }
        long last = System.nanoTime();
        long deadline = last + STOP_WAIT_NANOS;
        while (true) {
            long now = System.nanoTime();
            if (now - last > STOPPED_GAP_NANOS) {
                return;
            }
            if (now - deadline > 0) {
                lines.write(json.error("pause-after-fenced-write: the node did not stop within "
                        + STOP_WAIT_NANOS / 1_000_000 + " ms", clock.instant()));
                return;
            }
            last = now;
            Thread.onSpinWait();
        }
    }

    @Override
    public CompletableFuture<FencedMapWrite> fencedRemove(String group, String map, String key, String nodeId,
            long term) {
        return delegate.fencedRemove(group, map, key, nodeId, term);
    }

    @Override
    public CompletableFuture<Optional<FencedValue>> mapGet(String group, String map, String key) {
        return delegate.mapGet(group, map, key);
    }

    @Override
    public CompletableFuture<SortedMap<String, FencedValue>> mapEntries(String group, String map) {
        return delegate.mapEntries(group, map);
    }
}
