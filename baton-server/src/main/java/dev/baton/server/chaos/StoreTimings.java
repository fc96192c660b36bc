package dev.baton.server.chaos;

import dev.baton.core.ElectionConfig;
import java.time.Duration;
import java.util.List;

/**
 * The lease timings the nodes of a store backend run with in a chaos run: shorter than the {@code fast} profile so
 * that a trial (a fault held for longer than a lease, then a new leader) takes seconds, and the bound within which a
 * leader must exist once the faults heal.
 *
 * @param leaseTtl      the lease's time to live
 * @param renewInterval how often a leader renews
 * @param checkInterval how often a follower checks the lease (a fallback: release notices and expiry wake-ups come
 *                      first)
 */
record StoreTimings(Duration leaseTtl, Duration renewInterval, Duration checkInterval) {

    /** Lease 2 s, renew every 500 ms, check every 250 ms. */
    static StoreTimings chaos() {
        return new StoreTimings(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(250));
    }

    /**
     * Lease 1 s, renew every 250 ms, check every 125 ms: the replicated stores' targets, whose trials also wait for
     * the store's own failover, so that a thousand trials take minutes rather than an hour. Safety does not rest on
     * the lease's length; every fault that must outlast a lease still does.
     */
    static StoreTimings replicated() {
        return new StoreTimings(Duration.ofSeconds(1), Duration.ofMillis(250), Duration.ofMillis(125));
    }

    /** The scale of {@link ChaosTarget#holdScale()}: this lease over the {@link #chaos()} lease. */
    double holdScale() {
        return (double) leaseTtl.toMillis() / chaos().leaseTtl().toMillis();
    }

    /**
     * After healing, a leader must exist within two leases and a second: the old lease may still run its full TTL
     * (restored from a snapshot, say), and the next acquire waits for a check or an expiry wake-up, with jitter.
     */
    Duration leaderBound() {
        return leaseTtl.multipliedBy(2).plusSeconds(1);
    }

    /**
     * How far the store's clock may step forward during a lease without breaking exclusion: the nodes'
     * {@code safetyMargin + leaseTtl * maxClockDrift}, from the configuration {@link #nodeArgs} gives them (the fast
     * profile with these timings: 120 ms for the 2 s lease).
     */
    Duration storeClockMargin() {
        ElectionConfig config = ElectionConfig.profile("fast").leaseTtl(leaseTtl).renewInterval(renewInterval)
                .checkInterval(checkInterval).build();
        return config.safetyMargin().plusNanos(Math.round(leaseTtl.toNanos() * config.maxClockDrift()));
    }

    /** {@code --backend URI --node-id ID} and the timing flags. */
    List<String> nodeArgs(String backendUri, String nodeId) {
        return List.of("--backend", backendUri, "--node-id", nodeId, "--profile", "fast",
                "--lease-ttl", leaseTtl.toMillis() + "ms", "--renew-interval", renewInterval.toMillis() + "ms",
                "--check-interval", checkInterval.toMillis() + "ms");
    }
}
