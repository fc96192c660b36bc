package dev.baton.bench.backend;

/**
 * What one store call is made of on a backend, in the words of the phase tables: how a release reaches the other
 * contenders, what an acquire costs, and what {@code start()} does before its first acquire.
 *
 * @param releaseToNotice  from {@code store.release()} to the release notice at the next leader's store
 * @param acquireRoundTrip from {@code store.acquire()} to its granted reply, on a store that is in use
 * @param startToAcquire   from {@code start()} to {@code store.acquire()}, on the threads of a default election
 * @param firstAcquire     the first acquire of an uncontested election, with the registration that follows it
 */
public record StorePath(String releaseToNotice, String acquireRoundTrip, String startToAcquire,
        String firstAcquire) {
}
