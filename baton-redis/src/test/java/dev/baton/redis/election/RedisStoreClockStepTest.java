package dev.baton.redis.election;

import dev.baton.core.store.CoordinationStore;
import dev.baton.redis.RedisStore;
import dev.baton.redis.RedisStoreOptions;
import dev.baton.testkit.RedisServer;
import dev.baton.testkit.StoreClock;
import dev.baton.testkit.StoreClockStepSuite;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/** Redis expires a lease ({@code PX}) on its own wall clock: what a step of that clock does to exclusion. */
class RedisStoreClockStepTest extends StoreClockStepSuite {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        Assumptions.assumeTrue(RedisServer.whyStoreClockUnavailable().isEmpty(),
                () -> RedisServer.whyStoreClockUnavailable().orElseThrow());
        redis = RedisServer.builder().withStoreClock().start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected CoordinationStore newStore() {
        return RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(2))
                .build());
    }

    @Override
    protected StoreClock storeClock() {
        return redis.storeClock();
    }
}
