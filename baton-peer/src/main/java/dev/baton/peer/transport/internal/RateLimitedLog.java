package dev.baton.peer.transport.internal;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * WARN lines that a misbehaving peer cannot turn into a flood: at most {@code burst} lines per key (a reject reason,
 * say) in each window; the next line after a window with suppressed lines says how many were left out.
 */
public final class RateLimitedLog {

    private final Logger log;
    private final Clock clock;
    private final long windowNanos;
    private final int burst;
    private final Map<String, Window> windows = new HashMap<>();

    public RateLimitedLog(Logger log, Clock clock, Duration window, int burst) {
        this.log = log;
        this.clock = clock;
        this.windowNanos = window.toNanos();
        this.burst = burst;
    }

    private static final class Window {
        long start;
        int logged;
        long suppressed;
    }

    /** Logs {@code message} at WARN unless this key's budget for the current window is spent. */
    public void warn(String key, String message) {
        if (!log.isWarnEnabled()) {
            return;
        }
        long suppressedBefore;
        synchronized (windows) {
            long now = clock.nanoTime();
            Window w = windows.computeIfAbsent(key, k -> new Window());
            if (w.logged == 0 || now - w.start >= windowNanos) {
                suppressedBefore = w.suppressed;
                w.start = now;
                w.logged = 0;
                w.suppressed = 0;
            } else {
                suppressedBefore = 0;
            }
            if (w.logged >= burst) {
                w.suppressed++;
                return;
            }
            w.logged++;
        }
        if (suppressedBefore > 0) {
            log.warn("{} ({} similar lines suppressed)", message, suppressedBefore);
        } else {
            log.warn(message);
        }
    }
}
