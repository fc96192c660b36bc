package dev.baton.redis;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.RedisServer;
import dev.baton.testkit.StoreConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Redis store passes the same contract as every other backend, on a private server. */
class RedisStoreConformanceTest extends StoreConformanceSuite {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected CoordinationStore newStore() {
        return RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).keyPrefix("conformance:").build());
    }
}
