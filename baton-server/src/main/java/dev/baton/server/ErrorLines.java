package dev.baton.server;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Bounds the {@code error} lines a node prints while something keeps failing (a store that is down fails every
 * renewal, check and heartbeat, several a second). Errors are grouped by kind — the message with its numbers blanked,
 * so "renewing the lease of term 7 failed" and "... term 8 ..." are one kind — and of each kind the first is printed,
 * then at most one per interval, carrying how many of that kind were left out since the last one printed. Over an
 * outage of {@code N} seconds a node prints at most {@code kinds × (1 + N / interval)} error lines.
 *
 * <p>Time comes from the node's {@link Clock}. Thread-safe (the node calls it from its one printing thread).
 */
final class ErrorLines {

    /** How often an error of one kind is printed at most while it keeps recurring. */
    static final Duration INTERVAL = Duration.ofSeconds(10);

    private final Clock clock;
    private final long intervalNanos;
    private final Map<String, Long> printedAt = new HashMap<>();
    private final Map<String, Integer> leftOut = new HashMap<>();

    ErrorLines(Clock clock, Duration interval) {
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
    }

    /**
     * Whether to print an error with {@code message} now: empty if it is left out, else how many errors of its kind
     * were left out since the last one printed (0 for the first).
     */
    synchronized OptionalInt admit(String message) {
        String kind = message == null ? "" : message.replaceAll("\\d+", "#");
        long now = clock.nanoTime();
        Long last = printedAt.get(kind);
        if (last != null && now - last < intervalNanos) {
            leftOut.merge(kind, 1, Integer::sum);
            return OptionalInt.empty();
        }
        printedAt.put(kind, now);
        Integer skipped = leftOut.remove(kind);
        return OptionalInt.of(skipped == null ? 0 : skipped);
    }
}
