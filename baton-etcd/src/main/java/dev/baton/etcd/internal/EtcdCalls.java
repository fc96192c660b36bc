package dev.baton.etcd.internal;

import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs one store call against etcd: bounds it with the call timeout and turns jetcd's failures into the store
 * contract's ({@link StoreTimeoutException} for a call that outlived its timeout, {@link StoreException} for
 * everything else), each naming the operation and the cluster.
 */
public final class EtcdCalls {

    private final String target;
    private final Duration timeout;

    /**
     * @param target  the cluster as {@code etcd://host:port,…}
     * @param timeout the longest one call may take
     */
    public EtcdCalls(String target, Duration timeout) {
        this.target = target;
        this.timeout = timeout;
    }

    /** Runs {@code call}, fails it after the timeout and translates its failure. Never blocks. */
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
        return result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(error -> {
            Throwable cause = unwrap(error);
            return CompletableFuture.failedFuture(cause instanceof TimeoutException
                    ? new StoreTimeoutException(operation + " on " + target + " timed out after "
                            + timeout.toMillis() + " ms")
                    : cause);
        });
    }

    /** The contract's exception for {@code error} thrown by {@code operation}. */
    public StoreException translate(String operation, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof StoreException storeException) {
            return storeException;
        }
        if (cause instanceof StatusRuntimeException status
                && status.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return new StoreTimeoutException(operation + " on " + target + " timed out: " + shortReason(cause));
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
