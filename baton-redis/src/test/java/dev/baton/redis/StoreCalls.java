package dev.baton.redis;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers shared by the Redis tests: bounded waits on store futures. */
final class StoreCalls {

    static final Duration LONG = Duration.ofSeconds(30);

    private StoreCalls() {}

    /** The future's value, failing the test if it fails or takes more than 10 s. */
    static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("store call failed: " + e.getCause(), e);
        }
    }

    /** The failure of a future expected to fail within 10 s. */
    static Throwable failure(CompletableFuture<?> future) {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("store call neither succeeded nor failed within 10 s", e);
        }
        throw new AssertionError("store call succeeded but was expected to fail");
    }

    /** Acquires {@code group} for {@code nodeId}, failing the test unless it is granted; returns the term. */
    static long acquire(CoordinationStore store, String group, String nodeId) {
        AcquireResult result = get(store.leases().acquire(group, NodeInfo.of(nodeId, "test"), LONG));
        if (!(result instanceof AcquireResult.Granted granted)) {
            throw new AssertionError("acquire by " + nodeId + " was not granted: " + result);
        }
        return granted.term();
    }
}
