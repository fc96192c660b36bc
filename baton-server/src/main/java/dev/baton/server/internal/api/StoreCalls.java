package dev.baton.server.internal.api;

import dev.baton.core.spi.FailureLog;
import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for a store call on a request thread, never longer than the node's store timeout. A call that fails or does
 * not answer becomes a {@code 503 store_unavailable}: the details (addresses, driver messages) go to the log, not to
 * the client, through an outage log: while the store stays down, requests do not log a line each (the first failure of
 * each kind is logged in full, then one summary line every {@link FailureLog#DEFAULT_INTERVAL}, then one line when a
 * call succeeds again).
 */
final class StoreCalls {

    private static final Logger log = LoggerFactory.getLogger(StoreCalls.class);

    private final Duration timeout;
    private final FailureLog failures;

    StoreCalls(Duration timeout, Clock clock) {
        this.timeout = timeout;
        this.failures = new FailureLog("", "store", clock, FailureLog.DEFAULT_INTERVAL, FailureLog.Lines.of(log));
    }

    Duration timeout() {
        return timeout;
    }

    /**
     * The call's result.
     *
     * @param what what the call does, for the message, e.g. {@code "reading the work items"}
     * @throws ApiProblem 503 if the store failed or did not answer in time
     */
    <T> T await(CompletableFuture<T> call, String what) {
        try {
            T result = call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            failures.success();
            return result;
        } catch (TimeoutException e) {
            failures.failure(what, "The store did not answer within " + timeout.toMillis() + " ms while " + what);
            throw ApiProblem.storeUnavailable("The store did not answer within " + timeout.toMillis() + " ms while "
                    + what);
        } catch (ExecutionException e) {
            failures.failure(what, "Store call failed while " + what + ": " + e.getCause());
            throw ApiProblem.storeUnavailable("The store failed while " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.storeUnavailable("Interrupted while " + what);
        }
    }
}
