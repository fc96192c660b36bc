package dev.baton.redis.internal;

import dev.baton.core.store.Subscription;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One handler's subscription to a channel of a pub/sub router ({@link PubSubRouter} or {@link ShardedPubSubRouter}):
 * ready when the router's subscription to the channel is confirmed, and closed once, which takes the handler off the
 * channel.
 */
final class ChannelSubscription implements Subscription {

    private final String channel;
    private final Consumer<byte[]> handler;
    private final CompletableFuture<Void> ready;
    private final BiConsumer<String, Consumer<byte[]>> unsubscribe;
    private boolean closed;

    /**
     * @param confirmed   the router's confirmation of its subscription to the channel (copied: completing it from
     *                    outside is not this handle's to do)
     * @param unsubscribe takes {@code handler} off {@code channel}
     */
    ChannelSubscription(String channel, Consumer<byte[]> handler, CompletableFuture<Void> confirmed,
            BiConsumer<String, Consumer<byte[]>> unsubscribe) {
        this.channel = channel;
        this.handler = handler;
        this.ready = confirmed.copy();
        this.unsubscribe = unsubscribe;
    }

    @Override
    public CompletableFuture<Void> ready() {
        return ready;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            unsubscribe.accept(channel, handler);
        }
    }
}
