package dev.baton.redis;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.RedisClusterTopology;
import dev.baton.testkit.StoreConformanceSuite;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Redis store on a Redis Cluster (three masters with a replica each, private) passes the same contract as every
 * other backend: every script runs on the master of its group's slot, notices and bus messages go over sharded
 * pub/sub.
 */
class RedisClusterConformanceTest extends StoreConformanceSuite {

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected CoordinationStore newStore() {
        return RedisStore.connect(RedisStoreOptions.builder().uri(clusterUri(cluster)).keyPrefix("conformance:")
                .build());
    }

    /** {@code redis-cluster://} with every node of {@code cluster} as a seed. */
    static String clusterUri(RedisClusterTopology cluster) {
        return "redis-cluster://" + cluster.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }
}
