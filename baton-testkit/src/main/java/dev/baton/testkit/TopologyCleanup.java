package dev.baton.testkit;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes every replicated topology ({@link RedisSentinelTopology}, {@link RedisClusterTopology},
 * {@link PostgresStandbyTopology}, {@link EtcdCluster}) that a test forgot or failed before closing, when the JVM
 * exits, so no server process outlives the test run. One shutdown hook for all of them.
 */
final class TopologyCleanup {

    private static final Set<AutoCloseable> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(TopologyCleanup::closeAll, "baton-topology-cleanup"));
    }

    private TopologyCleanup() {}

    /** Closes {@code topology} at JVM exit unless it is {@link #forget forgotten} first. */
    static void register(AutoCloseable topology) {
        LIVE.add(topology);
    }

    /** Called by a topology's own {@code close()}. */
    static void forget(AutoCloseable topology) {
        LIVE.remove(topology);
    }

    private static void closeAll() {
        for (AutoCloseable topology : List.copyOf(LIVE)) {
            try {
                topology.close();
            } catch (Exception e) {
                System.err.println("could not clean up " + topology + ": " + e);
            }
        }
    }
}
