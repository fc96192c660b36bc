package dev.baton.core.store;

import java.time.Duration;

/**
 * A lease as the store sees it.
 *
 * @param owner     node id of the holder
 * @param term      the term the holder was granted
 * @param remaining time until the lease expires, by the store's clock, as of the store's reply
 */
public record Lease(String owner, long term, Duration remaining) {
}
