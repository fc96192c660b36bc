package dev.baton.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The bounded polling loop the replicated topologies wait with (setup, failovers, elections). The testkit's launchers
 * are also used outside tests, where Awaitility is not on the class path, so they poll by themselves. A condition
 * that throws (a node that does not answer yet, a Sentinel still failing over) counts as not met yet.
 */
final class TopologyAwait {

    private static final long POLL_MILLIS = 50;

    private TopologyAwait() {}

    /**
     * Polls {@code condition} every 50 ms until it holds, for at most {@code timeout}.
     *
     * @throws IllegalStateException if it never held: "timed out after N s waiting for WHAT; STATE", where STATE is
     *                               what {@code state} describes at that moment
     */
    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
                last = null;
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() >= deadline) {
                String now;
                try {
                    now = state.get();
                } catch (RuntimeException e) {
                    now = "(state unavailable: " + e.getMessage() + ")";
                }
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + "; " + now + (last != null ? "; last error: " + last.getMessage() : ""), last);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
