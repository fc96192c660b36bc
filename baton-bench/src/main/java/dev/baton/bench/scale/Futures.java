package dev.baton.bench.scale;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Bounded waits on the groups' futures. */
final class Futures {

    private Futures() {
    }

    /** Waits up to {@code timeout} for {@code future}; whether it completed normally in time. */
    static boolean await(CompletableFuture<?> future, Duration timeout) throws InterruptedException {
        try {
            future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    /** Waits up to {@code timeout} for all of {@code futures}; whether every one completed normally in time. */
    static boolean awaitAll(List<? extends CompletableFuture<?>> futures, Duration timeout)
            throws InterruptedException {
        return await(CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)), timeout);
    }

    /** The values of the futures that completed normally so far. */
    static long[] completed(List<CompletableFuture<Long>> futures) {
        return futures.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally())
                .mapToLong(CompletableFuture::join).toArray();
    }
}
