package dev.baton.redis;

import static dev.baton.redis.StoreCalls.acquire;
import static dev.baton.redis.StoreCalls.failure;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.core.store.Subscription;
import dev.baton.redis.internal.Scripts;
import dev.baton.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the store does when Redis forgets, restarts, hangs or dies: each test on its own private server. */
class RedisStoreRecoveryTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    private static final String GROUP = "recovery";

    private RedisServer redis;
    private RedisStore store;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).commandTimeout(COMMAND_TIMEOUT)
                .build());
    }

    @AfterEach
    void stop() {
        store.close();
        redis.close();
    }

    @Test
    void scriptsAreLoadedAgainAfterScriptFlush() {
        long term = acquire(store, GROUP, "a");
        try (RawRedis raw = RawRedis.open(redis.uri())) {
            raw.sync().scriptFlush();
            assertThat(raw.sync().scriptExists(Scripts.RENEW.sha())).containsExactly(false);

            assertThat(get(store.leases().renew(GROUP, "a", term, StoreCalls.LONG))).isTrue();

            assertThat(raw.sync().scriptExists(Scripts.RENEW.sha())).containsExactly(true);
        }
    }

    @Test
    void termsKeepIncreasingAfterFlushAll() {
        long before = acquire(store, GROUP, "a");
        try (RawRedis raw = RawRedis.open(redis.uri())) {
            raw.sync().flushall();
        }

        long after = acquire(store, GROUP, "b");

        assertThat(after).isGreaterThan(before);
    }

    @Test
    void termsKeepIncreasingAfterARestartThatLostTheData() {
        long before = acquire(store, GROUP, "a");

        redis.stop();
        redis.restart();

        long after = await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> acquire(store, GROUP, "b"), term -> term > 0);
        assertThat(after).isGreaterThan(before);
    }

    @Test
    void subscriptionsResumeAfterTheServerRestarts() {
        List<String> received = new CopyOnWriteArrayList<>();
        get(store.bus().subscribe("resume", message -> received.add(new String(message, StandardCharsets.UTF_8)))
                .ready());

        redis.kill();
        redis.restart();

        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            get(store.bus().publish("resume", "back".getBytes(StandardCharsets.UTF_8)));
            return received.contains("back");
        });
    }

    @Test
    void aSubscriptionMadeWhileRedisIsDownFailsReadyButStartsOnceRedisIsBack() {
        redis.kill();
        List<String> received = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().read(GROUP).handle((v, e) -> e != null)
                .join());

        Subscription subscription = store.bus().subscribe("late",
                message -> received.add(new String(message, StandardCharsets.UTF_8)));

        assertThat(failure(subscription.ready())).isInstanceOf(StoreException.class)
                .hasMessageContaining("subscribe to late");
        redis.restart();
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            get(store.bus().publish("late", "hello".getBytes(StandardCharsets.UTF_8)));
            return received.contains("hello");
        });
        subscription.close();
    }

    @Test
    void aPausedServerMakesCallsTimeOutAndTheStoreRecoversOnResume() {
        acquire(store, GROUP, "a");
        redis.pause();
        try {
            long started = System.nanoTime();
            Throwable error = failure(store.leases().read(GROUP));
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(error).isInstanceOf(StoreTimeoutException.class).hasMessageContaining("read lease")
                    .hasMessageContaining(store.describe());
            assertThat(took).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.minusMillis(50))
                    .isLessThan(COMMAND_TIMEOUT.plusSeconds(1));
        } finally {
            redis.resume();
        }

        await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
                .until(() -> get(store.leases().read(GROUP)).isPresent());
    }

    @Test
    void aDeadServerMakesCallsFailFastUntilItIsBack() {
        redis.kill();

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            long started = System.nanoTime();
            Throwable error = failure(store.leases().read(GROUP));
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            return error instanceof StoreException && !(error instanceof StoreTimeoutException)
                    && took.compareTo(COMMAND_TIMEOUT) < 0;
        });
        assertThat(failure(store.leases().acquire(GROUP, NodeInfo.of("a", "test"), StoreCalls.LONG)))
                .isInstanceOf(StoreException.class).hasMessageContaining("acquire");

        redis.restart();

        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() ->
                get(store.leases().acquire(GROUP, NodeInfo.of("a", "test"), StoreCalls.LONG))
                        instanceof AcquireResult.Granted);
    }
}
