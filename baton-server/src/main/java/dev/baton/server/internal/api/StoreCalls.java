package dev.baton.server.internal.api;

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
 * the client.
 */
final class StoreCalls {

    private static final Logger log = LoggerFactory.getLogger(StoreCalls.class);

    private final Duration timeout;

    StoreCalls(Duration timeout) {
        this.timeout = timeout;
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
            return call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw ApiProblem.storeUnavailable("The store did not answer within " + timeout.toMillis() + " ms while "
                    + what);
        } catch (ExecutionException e) {
            log.warn("Store call failed while {}: {}", what, String.valueOf(e.getCause()));
            throw ApiProblem.storeUnavailable("The store failed while " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiProblem.storeUnavailable("Interrupted while " + what);
        }
    }
}
