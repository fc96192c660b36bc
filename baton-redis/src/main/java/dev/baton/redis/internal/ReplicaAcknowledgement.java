package dev.baton.redis.internal;

import dev.baton.core.store.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The optional {@code WAIT replicas timeout} after a write fencing rests on ({@code RedisStoreOptions.waitReplicas}):
 * a grant, renewal, fenced write or leader record the primary applied counts only once enough replicas acknowledged
 * it. {@code WAIT} must run on the
 * connection that wrote, since Redis waits for that client's last write; it holds that connection for up to the
 * timeout. It narrows the window of asynchronous replication and does not close it: the write stays applied on the
 * primary when the wait falls short.
 */
public final class ReplicaAcknowledgement {

    private final RedisConnections connections;
    private final int replicas;
    private final Duration timeout;
    private final String target;

    /**
     * @param connections the connections the scripts run on; {@code WAIT} goes to the one that wrote the key
     * @param replicas    how many replicas must acknowledge; 0 waits for none
     * @param timeout     how long {@code WAIT} may take
     * @param target      the store as shown in messages, without credentials
     */
    public ReplicaAcknowledgement(RedisConnections connections, int replicas, Duration timeout, String target) {
        this.connections = connections;
        this.replicas = replicas;
        this.timeout = timeout;
        this.target = target;
    }

    /**
     * {@code reply}, once enough replicas acknowledged it when {@code wrote} says the primary applied a write of
     * {@code key}; otherwise a {@link StoreException} naming {@code operation} and how many replicas answered.
     */
    public <T> CompletableFuture<T> await(String operation, String key, CompletableFuture<T> reply,
            Predicate<T> wrote) {
        if (replicas == 0) {
            return reply;
        }
        return reply.thenCompose(value -> wrote.test(value)
                ? acknowledged(key, value, acknowledged -> operation + " on " + target + " was applied on the primary "
                        + "but acknowledged by " + acknowledged + " of the " + replicas + " replicas required within "
                        + timeout.toMillis() + " ms")
                : CompletableFuture.completedFuture(value));
    }

    /**
     * {@code reply}, a read of {@code key}, once enough replicas are in step with the server that answered it: a
     * primary the Sentinels deposed (its replicas now follow another) still answers reads from what it had, until it
     * is reconfigured, and this turns such a read into a {@link StoreException} instead. {@code WAIT} on a connection
     * whose writes the replicas already have returns at once.
     */
    public <T> CompletableFuture<T> confirmRead(String operation, String key, CompletionStage<T> reply) {
        if (replicas == 0) {
            return reply.toCompletableFuture();
        }
        return reply.toCompletableFuture().thenCompose(value -> acknowledged(key, value, acknowledged -> operation
                + " on " + target + " was answered by a server that " + acknowledged + " of the " + replicas
                + " replicas required followed within " + timeout.toMillis() + " ms (a deposed primary answers from "
                + "what it had)"));
    }

    private <T> CompletableFuture<T> acknowledged(String key, T value, IntFunction<String> shortfall) {
        return connections.writerOf(key).thenCompose(writer -> writer.waitForReplication(replicas,
                        Math.max(1, timeout.toMillis())).toCompletableFuture())
                .thenApply(acknowledged -> {
                    if (acknowledged < replicas) {
                        throw new StoreException(shortfall.apply(acknowledged.intValue()));
                    }
                    return value;
                });
    }
}
