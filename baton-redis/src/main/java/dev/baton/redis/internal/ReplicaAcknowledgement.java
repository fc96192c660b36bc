package dev.baton.redis.internal;

import dev.baton.core.store.StoreException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The optional {@code WAIT replicas timeout} after a lease write ({@code RedisStoreOptions.acquireReplicas}): a grant
 * or renewal the primary applied counts only once enough replicas acknowledged it. {@code WAIT} must run on the
 * connection that wrote, since Redis waits for that client's last write; it holds that connection for up to the
 * timeout. It narrows the window of asynchronous replication and does not close it: the write stays applied on the
 * primary when the wait falls short.
 */
public final class ReplicaAcknowledgement {

    private final RedisAsyncCommands<String, byte[]> commands;
    private final int replicas;
    private final Duration timeout;
    private final String target;

    /**
     * @param commands the connection the lease scripts run on
     * @param replicas how many replicas must acknowledge; 0 waits for none
     * @param timeout  how long {@code WAIT} may take
     * @param target   the store as shown in messages, without credentials
     */
    public ReplicaAcknowledgement(RedisAsyncCommands<String, byte[]> commands, int replicas, Duration timeout,
            String target) {
        this.commands = commands;
        this.replicas = replicas;
        this.timeout = timeout;
        this.target = target;
    }

    /**
     * {@code reply}, once enough replicas acknowledged it when {@code wrote} says the primary applied a write;
     * otherwise a {@link StoreException} naming {@code operation} and how many replicas answered.
     */
    public <T> CompletableFuture<T> await(String operation, CompletableFuture<T> reply, Predicate<T> wrote) {
        if (replicas == 0) {
            return reply;
        }
        return reply.thenCompose(value -> {
            if (!wrote.test(value)) {
                return CompletableFuture.completedFuture(value);
            }
            return commands.waitForReplication(replicas, Math.max(1, timeout.toMillis())).toCompletableFuture()
                    .thenApply(acknowledged -> {
                        if (acknowledged < replicas) {
                            throw new StoreException(operation + " on " + target + " was applied on the primary but "
                                    + "acknowledged by " + acknowledged + " of the " + replicas
                                    + " replicas required within " + timeout.toMillis() + " ms");
                        }
                        return value;
                    });
        });
    }
}
