package dev.baton.peer.internal;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * What a protocol's periodic tick does with an exception it did not expect (a bug, a message that cannot be encoded,
 * a collaborator that throws): the tick is rescheduled regardless, so the heartbeat goes on, and the failure is logged
 * at ERROR with its stack trace and reported as an {@code ElectionError} — at most once a minute per task and kind of
 * exception, so that a failure repeating on every tick cannot flood the log or the listeners. Reads time only through
 * the node's {@link Clock}, so a simulation stays deterministic. Confined to the node's scheduler. Not a published
 * API.
 */
public final class TickFailures {

    private static final long WINDOW_NANOS = Duration.ofMinutes(1).toNanos();

    private final Logger log;
    private final Clock clock;
    private final NodeOutput output;
    private final String where;
    private final Map<String, Long> lastReported = new HashMap<>();
    private final Map<String, Long> suppressed = new HashMap<>();

    /** @param where how messages name the node, e.g. {@code [group host:port]} */
    public TickFailures(Logger log, Clock clock, NodeOutput output, String where) {
        this.log = log;
        this.clock = clock;
        this.output = output;
        this.where = where;
    }

    /** Reports that {@code task} failed with {@code failure}; the task runs again at its next interval. */
    public void report(String task, RuntimeException failure) {
        String key = task + "/" + failure.getClass().getName();
        long now = clock.nanoTime();
        Long last = lastReported.get(key);
        if (last != null && now - last < WINDOW_NANOS) {
            suppressed.merge(key, 1L, Long::sum);
            return;
        }
        lastReported.put(key, now);
        Long left = suppressed.remove(key);
        String message = where + " " + task + " failed: " + failure + "; it runs again at its next interval"
                + (left == null ? "" : " (" + left + " similar failures not reported in the last minute)");
        log.error(message, failure);
        output.error(message, failure);
    }
}
