package dev.baton.core.store;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Fire-and-forget messaging between processes (Redis pub/sub, PostgreSQL NOTIFY, peer messages). Delivery is at most
 * once, to the subscribers connected at the time.
 */
public interface MessageBus {

    /** Publishes {@code message} on {@code channel}; completes with the number of receivers where known, else -1. */
    CompletableFuture<Long> publish(String channel, byte[] message);

    /** Delivers every message published on {@code channel} until closed. Handlers run on the store's I/O thread. */
    Subscription subscribe(String channel, Consumer<byte[]> handler);
}
