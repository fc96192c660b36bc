package dev.baton.core.store;

import java.util.concurrent.CompletableFuture;

/** A live subscription to push notices. Closing it twice does nothing. */
public interface Subscription extends AutoCloseable {

    /** Completes once the store is delivering notices for this subscription. */
    CompletableFuture<Void> ready();

    @Override
    void close();
}
