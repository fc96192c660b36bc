package dev.baton.core.lease;

import dev.baton.core.StoreContact;
import dev.baton.core.spi.FailureLog;
import dev.baton.core.time.Clock;
import java.time.Duration;

/**
 * A lease election's view of its link to the store: when the store last answered one of its calls (for
 * {@link StoreContact}), and the log of its failures, which reports an outage in a bounded number of lines. Every store
 * reply the election and its membership get passes through {@link TimedCalls}, which tells this link.
 */
final class StoreLink {

    private final Clock clock;
    private final Duration limit;
    private final FailureLog failures;
    // Written on the scheduler, read by status calls from any thread.
    private volatile long lastReplyNanos;

    StoreLink(Clock clock, Duration limit, FailureLog failures) {
        this.clock = clock;
        this.limit = limit;
        this.failures = failures;
        this.lastReplyNanos = clock.nanoTime();
    }

    /** The election starts now: silence before the first reply counts from here. */
    void started() {
        lastReplyNanos = clock.nanoTime();
    }

    /** The store answered a call (whatever it said: a denied acquire is an answer). */
    void replied() {
        lastReplyNanos = clock.nanoTime();
        failures.success();
    }

    /**
     * The store answered a call made for this election by someone else (the session keeper's keep-alive), from any
     * thread: only the silence is reset, the failure log belongs to the election's own calls.
     */
    void heardFromStore() {
        lastReplyNanos = clock.nanoTime();
    }

    /** A call of {@code kind} failed or timed out; {@code message} describes it in full. */
    void failed(String kind, String message) {
        failures.failure(kind, message);
    }

    StoreContact contact() {
        return new StoreContact(Duration.ofNanos(Math.max(0, clock.nanoTime() - lastReplyNanos)), limit);
    }
}
