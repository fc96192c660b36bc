package dev.baton.core.store;

import java.util.concurrent.CompletableFuture;

/** A live subscription to push notices. Closing it twice does nothing. */
public interface Subscription extends AutoCloseable {

    /**
     * Completes once the store is delivering notices for this subscription; completes exceptionally if the store
     * could not subscribe (it keeps retrying in the background while the subscription is open). Elections do not
     * wait for it: notices are hints, and a follower that misses them still wakes at the lease expiry it read.
     */
    CompletableFuture<Void> ready();

    @Override
    void close();
}
