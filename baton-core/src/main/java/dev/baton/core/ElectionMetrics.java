package dev.baton.core;

/**
 * Measurements an election reports as it runs, for a metrics library to record (the node binds them to Micrometer).
 * Core itself depends on no metrics library; the default does nothing.
 *
 * <p>Methods are called on the election's scheduler thread, so they must be quick and must not block.
 */
public interface ElectionMetrics {

    /** Records nothing. */
    ElectionMetrics NONE = new ElectionMetrics() {
    };

    /**
     * One store call the election made ({@code acquire}, {@code renew}, {@code release}, {@code register},
     * {@code heartbeat}, {@code unregister}, {@code sweep expired members}), with the time until its outcome and
     * whether it succeeded; a call that failed or timed out did not.
     */
    default void storeCall(String operation, long nanos, boolean succeeded) {
    }

    /**
     * A successful renewal by the leader: its round-trip time, and how much of the local deadline was left when the
     * renewal was sent. That margin is the slack between "still safe to act" and "would have had to stop": if it
     * shrinks toward zero, the renew interval is too long for the store's latency.
     */
    default void leaseRenewed(long latencyNanos, long marginNanos) {
    }

    /**
     * This node's leadership of {@code term} now counts itself valid until {@code deadlineNanos} on the election's
     * {@link dev.baton.core.time.Clock#nanoTime() clock}: called once when the leadership begins and again each time
     * a renewal (or a majority's acknowledgement, on the serverless backends) moves its deadline, on the thread that
     * moves it and before the new deadline takes effect. With the leadership's end (its {@code LeadershipLost}), these
     * give the exact interval in which {@link Leadership#isValid()} could answer true, which is what an exclusion
     * check compares across nodes; {@code deadlineNanos} minus the current time is the leader's margin.
     */
    default void validUntil(long term, long deadlineNanos) {
    }
}
