package dev.baton.redis;

import static dev.baton.redis.StoreCalls.LONG;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.FencedValue;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A term is never issued twice, even when Redis comes back with an OLDER state (DESIGN §3 rule 5): restored from an
 * RDB snapshot, from an AOF that lost its last second, or empty. In each scenario n1 leads under a term that the
 * restored state still knows, n2 takes over under a term the restored state has lost, and n3 acquires after the
 * restore; n3's term must be above both, and the fenced register and maps must refuse n2's lost term. Each test on
 * its own private server.
 */
class RedisTermSafetyTest {

    private static final String GROUP = "terms";
    /** The restored state's lease must expire by itself before n3 can take over; kept short so the wait is too. */
    private static final Duration BRIEF = Duration.ofSeconds(1);
    private static final Duration BACK = Duration.ofSeconds(15);

    @Test
    void aSnapshotRestoreNeverReissuesTheLostTermAndTheRegisterRefusesIt() {
        try (RedisServer redis = RedisServer.start(); RedisStore store = connect(redis)) {
            long kept = acquire(store, "n1", BRIEF);
            assertThat(write(store, "n1", kept)).isTrue();
            RedisServer.Snapshot snapshot = redis.snapshot();
            get(store.leases().release(GROUP, "n1", kept));
            long lost = acquire(store, "n2", LONG);
            assertThat(lost).isGreaterThan(kept);
            assertThat(write(store, "n2", lost)).isTrue();

            redis.restartFrom(snapshot);

            assertThat(awaitWrite(store, "n2", lost)).as("the lost term is not the newest the store knows").isFalse();
            long next = awaitAcquired(store, "n3");
            assertThat(next).isGreaterThan(lost);
            assertThat(write(store, "n2", lost)).as("deposed holder of the lost term").isFalse();
            assertThat(write(store, "n1", kept)).as("holder of the restored term").isFalse();
            assertThat(write(store, "n3", next)).isTrue();
            assertThat(get(store.registers().fencedRead(GROUP, "config"))).get().extracting(FencedValue::term,
                    FencedValue::writer)
                    .containsExactly(next, "n3");
        }
    }

    @Test
    void anAofThatLostItsLastSecondNeverReissuesTheLostTerm() {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start(); RedisStore store = connect(redis)) {
            long kept = acquire(store, "n1", BRIEF);
            assertThat(write(store, "n1", kept)).isTrue();
            RedisServer.AofMark mark = redis.aofMark();
            get(store.leases().release(GROUP, "n1", kept));
            long lost = acquire(store, "n2", LONG);
            assertThat(write(store, "n2", lost)).isTrue();

            redis.restartWithAofTruncatedTo(mark);

            long next = awaitAcquired(store, "n3");
            assertThat(next).isGreaterThan(lost);
            assertThat(write(store, "n2", lost)).isFalse();
            assertThat(write(store, "n3", next)).isTrue();
        }
    }

    @Test
    void aRestartWithoutPersistenceIssuesATermAboveEveryEarlierOne() {
        try (RedisServer redis = RedisServer.start(); RedisStore store = connect(redis)) {
            long highest = 0;
            for (String node : List.of("n1", "n2", "n1")) {
                long term = acquire(store, node, LONG);
                assertThat(term).isGreaterThan(highest);
                highest = term;
                get(store.leases().release(GROUP, node, term));
            }

            redis.kill();
            redis.restart();

            long next = awaitAcquired(store, "n3");
            assertThat(next).isGreaterThan(highest);
        }
    }

    @Test
    void aFencedMapRefusesThePutsAndRemovesOfTheLostTermAfterARestore() {
        try (RedisServer redis = RedisServer.start(); RedisStore store = connect(redis)) {
            long kept = acquire(store, "n1", BRIEF);
            assertThat(put(store, "n1", kept, "a")).isTrue();
            RedisServer.Snapshot snapshot = redis.snapshot();
            get(store.leases().release(GROUP, "n1", kept));
            long lost = acquire(store, "n2", LONG);
            assertThat(put(store, "n2", lost, "a")).isTrue();

            redis.restartFrom(snapshot);

            long next = awaitAcquired(store, "n3");
            assertThat(next).isGreaterThan(lost);
            assertThat(put(store, "n2", lost, "b")).as("put under the lost term").isFalse();
            assertThat(get(store.maps().fencedRemove(GROUP, "items", "a", "n2", lost)).accepted())
                    .as("remove under the lost term").isFalse();
            assertThat(put(store, "n1", kept, "b")).as("put under the restored term").isFalse();
            assertThat(put(store, "n3", next, "c")).isTrue();
            assertThat(get(store.maps().mapEntries(GROUP, "items"))).containsOnlyKeys("a", "c");
            assertThat(get(store.maps().mapGet(GROUP, "items", "a"))).get().extracting(FencedValue::term)
                    .isEqualTo(kept);
        }
    }

    @Test
    void aCounterBehindTheClockJumpsToTheClockInMicroseconds() {
        try (RedisServer redis = RedisServer.start(); RedisStore store = connect(redis);
                RawRedis raw = RawRedis.open(redis.uri())) {
            raw.sync().set(termKey(), "5");
            long before = clockMicros(raw);

            long term = acquire(store, "n1", LONG);

            assertThat(term).isGreaterThanOrEqualTo(before).isLessThan(before + 60_000_000L);
            assertThat(raw.sync().get(termKey())).isEqualTo(Long.toString(term));
        }
    }

    @Test
    void aCounterAheadOfTheClockGoesOnByOneExactlyBeyondTwoToThe53() {
        try (RedisServer redis = RedisServer.start(); RedisStore store = connect(redis);
                RawRedis raw = RawRedis.open(redis.uri())) {
            // 2^53 + 2; its successor is not a double, so a script that did the sum in Lua numbers would round it.
            raw.sync().set(termKey(), "9007199254740994");

            long term = acquire(store, "n1", LONG);

            assertThat(term).isEqualTo(9007199254740995L);
            assertThat(write(store, "n1", 9007199254740996L)).as("equal as a double, but never issued").isFalse();
            assertThat(write(store, "n1", term)).isTrue();
        }
    }

    private static RedisStore connect(RedisServer redis) {
        return RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(2))
                .build());
    }

    private static long acquire(RedisStore store, String node, Duration ttl) {
        AcquireResult result = get(store.leases().acquire(GROUP, NodeInfo.of(node, "test"), ttl));
        if (!(result instanceof AcquireResult.Granted granted)) {
            throw new AssertionError("acquire by " + node + " was not granted: " + result);
        }
        return granted.term();
    }

    /** Acquires once the restarted server answers and the restored lease (if any) has expired. */
    private static long awaitAcquired(RedisStore store, String node) {
        return await().atMost(BACK).ignoreExceptions().until(() -> StoreCalls.acquire(store, GROUP, node),
                term -> term > 0);
    }

    private static boolean write(RedisStore store, String node, long term) {
        return get(store.registers().fencedWrite(GROUP, "config", node, term, bytes(node))).accepted();
    }

    /** A fenced write once the restarted server answers. */
    private static boolean awaitWrite(RedisStore store, String node, long term) {
        return await().atMost(BACK).ignoreExceptions().until(() -> write(store, node, term), accepted -> true);
    }

    private static boolean put(RedisStore store, String node, long term, String key) {
        return get(store.maps().fencedPut(GROUP, "items", key, node, term, bytes(node))).accepted();
    }

    private static String termKey() {
        return GroupKeys.of("", GROUP).term(); // the default key prefix
    }

    private static long clockMicros(RawRedis raw) {
        List<String> time = raw.sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
