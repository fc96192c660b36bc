package dev.baton.redis.internal;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;

/**
 * The Lettuce connections behind one store, whatever Redis runs as: one server or a Sentinel-watched primary
 * ({@link LettuceConnections}), or a Redis Cluster ({@link ClusterConnections}). The store's operations only see the
 * command API both share, a way to publish and subscribe, and the connection that wrote a key (for {@code WAIT}).
 */
public interface RedisConnections extends AutoCloseable {

    /** The command API: on a cluster, keyed commands go to the master of the key's slot. */
    RedisClusterAsyncCommands<String, byte[]> commands();

    /**
     * The connection that carried the latest write of {@code key} from {@link #commands()}, where {@code WAIT} must
     * run: the command connection itself on one server, the connection to the master of {@code key}'s slot on a
     * cluster.
     */
    CompletableFuture<RedisClusterAsyncCommands<String, byte[]>> writerOf(String key);

    /**
     * Publishes {@code message} on {@code channel} ({@code PUBLISH}, or {@code SPUBLISH} to the channel's shard on a
     * cluster); completes with the number of subscribers that received it.
     */
    CompletableFuture<Long> publish(String channel, byte[] message);

    /** The router of the store's subscriptions on these connections; the router does not close the connections. */
    ChannelRouter router(StoreFailures failures);

    /** Whether notices go over sharded pub/sub ({@code SPUBLISH}): on a cluster. */
    boolean sharded();

    /** Closes the connections and shuts the client and its threads down; waits up to a few seconds. */
    @Override
    void close();
}
