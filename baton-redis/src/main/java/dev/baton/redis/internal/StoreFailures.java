package dev.baton.redis.internal;

import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Turns Lettuce's failures into the store contract's: {@link StoreTimeoutException} for a command that outlived its
 * timeout, {@link StoreException} for everything else, each naming the operation and the server (never its
 * password).
 */
public final class StoreFailures {

    private final String target;
    private final Duration commandTimeout;

    /**
     * @param target         the server as {@code redis://host:port/db}
     * @param commandTimeout the timeout commands run with, quoted in timeout messages
     */
    public StoreFailures(String target, Duration commandTimeout) {
        this.target = target;
        this.commandTimeout = commandTimeout;
    }

    /**
     * Runs {@code call} and translates its failure, whether thrown or in the future it returns. Never blocks.
     */
    public <T> CompletableFuture<T> guard(String operation, Supplier<? extends CompletionStage<T>> call) {
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(translate(operation, e));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            if (error == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(translate(operation, error));
            }
        });
        return result;
    }

    /** The contract's exception for {@code error} thrown by {@code operation}. */
    public StoreException translate(String operation, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof StoreException storeException) {
            return storeException;
        }
        if (cause instanceof RedisCommandTimeoutException) {
            return new StoreTimeoutException(operation + " on " + target + " timed out after "
                    + commandTimeout.toMillis() + " ms");
        }
        return new StoreException(operation + " on " + target + " failed: " + shortReason(cause), cause);
    }

    /** The innermost message of {@code error}, or its type when it has none. */
    public static String shortReason(Throwable error) {
        Throwable innermost = error;
        while (innermost.getCause() != null && innermost.getCause() != innermost) {
            innermost = innermost.getCause();
        }
        String message = innermost.getMessage();
        return message == null || message.isBlank() ? innermost.getClass().getSimpleName() : message;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
