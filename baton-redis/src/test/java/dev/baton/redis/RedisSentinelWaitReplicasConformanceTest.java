package dev.baton.redis;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.RedisSentinelTopology;
import dev.baton.testkit.StoreConformanceSuite;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * With {@code waitReplicas(1, …)} on a healthy Sentinel deployment (whose data nodes also need one replica to take a
 * write) the store keeps every promise of the store contract: the replica wait adds latency, not behaviour.
 */
class RedisSentinelWaitReplicasConformanceTest extends StoreConformanceSuite {

    private static RedisSentinelTopology redis;

    @BeforeAll
    static void startTopology() {
        redis = RedisSentinelTopology.builder().minReplicasToWrite(1, Duration.ofSeconds(2)).start();
    }

    @AfterAll
    static void stopTopology() {
        redis.close();
    }

    @Override
    protected CoordinationStore newStore() {
        return RedisStore.connect(RedisStoreOptions.builder().uri(redis.sentinelUri()).keyPrefix("conformance:")
                .waitReplicas(1, Duration.ofMillis(500)).build());
    }
}
