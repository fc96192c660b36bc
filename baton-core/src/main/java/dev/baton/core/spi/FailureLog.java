package dev.baton.core.spi;

import dev.baton.core.StoreContact;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import org.slf4j.Logger;

/**
 * Logs the failures of one dependency (the store) without flooding the log while it is down. During an outage (from
 * the first failure to the next success) the first failure of each kind ({@code "renew"}, {@code "heartbeat"}, ...) is
 * logged in full; later ones are counted, and at most one summary line per interval says how many calls of each kind
 * failed since the last line, with the last error. The first success after failures logs one recovery line. Over an
 * outage of {@code N} seconds it therefore writes at most {@code kinds + N / interval + 1} lines.
 *
 * <p>Summaries are written when a failure arrives, not by a timer: a dependency that is down keeps failing calls, and
 * one that is no longer called needs no lines. Time comes from the given {@link Clock}. Thread-safe.
 */
public final class FailureLog {

    /** The interval between summary lines that nodes use. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    /** Where the lines go: a logger in production, a list in tests. */
    public interface Lines {
        void warn(String line);

        void info(String line);

        /** Warnings and the recovery line go to {@code log} at WARN and INFO. */
        static Lines of(Logger log) {
            return new Lines() {
                @Override
                public void warn(String line) {
                    log.warn(line);
                }

                @Override
                public void info(String line) {
                    log.info(line);
                }
            };
        }
    }

    private final String prefix;
    private final String subject;
    private final Clock clock;
    private final Duration interval;
    private final Lines lines;

    private boolean failing;
    private long outageStart;
    private long windowStart;
    private long outageFailures;
    private final Set<String> kindsLogged = new HashSet<>();
    private final Map<String, Integer> windowCounts = new LinkedHashMap<>();
    private String lastError;

    /**
     * @param prefix   put before every line, e.g. {@code "[orders] "}
     * @param subject  what fails, for the summary and recovery lines, e.g. {@code "store"}
     * @param interval the least time between two summary lines
     */
    public FailureLog(String prefix, String subject, Clock clock, Duration interval, Lines lines) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.lines = Objects.requireNonNull(lines, "lines");
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval must be positive, was " + interval);
        }
    }

    /**
     * A call of {@code kind} failed.
     *
     * @param message the full one-line description, logged as is for the first failure of its kind in an outage
     */
    public synchronized void failure(String kind, String message) {
        long now = clock.nanoTime();
        boolean first = !failing;
        if (first) {
            failing = true;
            outageStart = now;
            windowStart = now;
            outageFailures = 0;
        }
        outageFailures++;
        lastError = message;
        if (kindsLogged.add(kind)) {
            lines.warn(prefix + message + (first ? " (while the " + subject + " keeps failing, one summary line every "
                    + StoreContact.seconds(interval) + " s)" : ""));
            return;
        }
        windowCounts.merge(kind, 1, Integer::sum);
        if (now - windowStart >= interval.toNanos()) {
            int total = 0;
            StringJoiner byKind = new StringJoiner(", ", " (", ")");
            for (Map.Entry<String, Integer> entry : windowCounts.entrySet()) {
                total += entry.getValue();
                byKind.add(entry.getKey() + " " + entry.getValue());
            }
            lines.warn(prefix + subject + " still unreachable: " + total + " failed call" + (total == 1 ? "" : "s")
                    + byKind + " in the last " + StoreContact.seconds(Duration.ofNanos(now - windowStart))
                    + " s; last error: " + lastError);
            windowCounts.clear();
            windowStart = now;
        }
    }

    /** A call succeeded: ends the outage, if there was one, with one line. */
    public synchronized void success() {
        if (!failing) {
            return;
        }
        long now = clock.nanoTime();
        lines.info(prefix + subject + " reachable again after " + StoreContact.seconds(
                Duration.ofNanos(now - outageStart)) + " s; " + outageFailures + " call"
                + (outageFailures == 1 ? "" : "s") + " failed meanwhile");
        failing = false;
        kindsLogged.clear();
        windowCounts.clear();
        lastError = null;
    }
}
