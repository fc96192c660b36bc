package dev.baton.redis.internal;

import dev.baton.core.store.Subscription;
import java.util.function.Consumer;

/**
 * Shares a store's pub/sub connection(s) among its subscriptions: {@link PubSubRouter} ({@code SUBSCRIBE}, one
 * server) or {@link ShardedPubSubRouter} ({@code SSUBSCRIBE} on the master of each channel's slot, a cluster).
 * Handlers run on a Lettuce I/O thread and must not block.
 */
public interface ChannelRouter extends AutoCloseable {

    /** Delivers every message on {@code channel} to {@code handler} until the returned subscription is closed. */
    Subscription subscribe(String channel, Consumer<byte[]> handler);

    /** Drops every subscription; nothing is delivered afterwards. The connections' owner closes them. */
    @Override
    void close();
}
