package dev.baton.core.lease;

import dev.baton.core.ElectionMetrics;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's {@link ElectionMetrics}, called so that an exception there cannot stop the election: its callbacks run in
 * the middle of the renewal and heartbeat loops, before the next round is scheduled. A failure is logged once per
 * callback and kind of exception, then ignored.
 */
final class GuardedMetrics implements ElectionMetrics {

    private static final Logger log = LoggerFactory.getLogger(GuardedMetrics.class);

    private final ElectionMetrics delegate;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    private GuardedMetrics(ElectionMetrics delegate) {
        this.delegate = delegate;
    }

    static ElectionMetrics guard(ElectionMetrics metrics) {
        return metrics == ElectionMetrics.NONE || metrics instanceof GuardedMetrics ? metrics
                : new GuardedMetrics(metrics);
    }

    @Override
    public void storeCall(String operation, long nanos, boolean succeeded) {
        try {
            delegate.storeCall(operation, nanos, succeeded);
        } catch (RuntimeException e) {
            report("storeCall", e);
        }
    }

    @Override
    public void leaseRenewed(long latencyNanos, long marginNanos) {
        try {
            delegate.leaseRenewed(latencyNanos, marginNanos);
        } catch (RuntimeException e) {
            report("leaseRenewed", e);
        }
    }

    @Override
    public void validUntil(long term, long deadlineNanos) {
        try {
            delegate.validUntil(term, deadlineNanos);
        } catch (RuntimeException e) {
            report("validUntil", e);
        }
    }

    private void report(String callback, RuntimeException e) {
        if (reported.add(callback + "/" + e.getClass().getName())) {
            log.error("ElectionMetrics.{} of {} failed; the election goes on, and further {} from it are not logged",
                    callback, delegate, e.getClass().getSimpleName(), e);
        }
    }
}
