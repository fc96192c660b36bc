package dev.baton.work.internal.route;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Counts refused messages and logs them at WARN, at most one line per interval (the rest are counted and summed up in
 * the next line), so that a flood of garbage cannot flood the log. Thread-safe.
 */
public final class BadMessageLog {

    private final Logger log;
    private final String where;
    private final Clock clock;
    private final long intervalNanos;
    private final AtomicLong count = new AtomicLong();
    private long lastLogNanos;
    private boolean logged;
    private long suppressed;

    /**
     * @param where what received the messages, for the log line (e.g. {@code channel worker:master:commands})
     */
    public BadMessageLog(Logger log, String where, Clock clock, Duration interval) {
        this.log = log;
        this.where = where;
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
    }

    /** Counts one refused message and logs it unless a line was written within the interval. */
    public void dropped(String problem) {
        count.incrementAndGet();
        long now = clock.nanoTime();
        long more;
        synchronized (this) {
            if (logged && now - lastLogNanos < intervalNanos) {
                suppressed++;
                return;
            }
            more = suppressed;
            suppressed = 0;
            logged = true;
            lastLogNanos = now;
        }
        log.warn("{}: dropped a bad message: {}{}", where, problem,
                more > 0 ? " (" + more + " more dropped since the last warning)" : "");
    }

    /** How many messages were dropped. */
    public long count() {
        return count.get();
    }
}
