package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreClockTest {

    /** How far a server's clock may read from the store clock's own account: a round trip and a scheduling delay. */
    private static final long TOLERANCE_MILLIS = 250;
    private static final Duration AT_ONCE = Duration.ofMillis(500);
    private static final Duration GENEROUS = Duration.ofSeconds(10);
    /** Redis TIME as milliseconds, through a script because the probe reads single values only. */
    private static final String TIME_MILLIS =
            "local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

    @Test
    void aRedisKeyWithPxExpiresAtOnceAfterTheStoreClockStepsPastIt() throws IOException {
        try (RedisServer redis = redisWithStoreClock()) {
            assertThat(call(redis, "SET", "lease", "node-1", "PX", "5000")).isEqualTo("OK");
            assertThat(call(redis, "PTTL", "lease")).satisfies(ttl -> assertThat(Long.parseLong(ttl)).isPositive());

            redis.storeClock().step(Duration.ofSeconds(10));

            await().atMost(AT_ONCE).untilAsserted(() -> assertThat(call(redis, "EXISTS", "lease")).isEqualTo("0"));
        }
    }

    @Test
    void redisTimeFollowsStepsForwardAndBack() throws IOException {
        try (RedisServer redis = redisWithStoreClock()) {
            StoreClock clock = redis.storeClock();
            long before = redisMillis(redis);

            clock.step(Duration.ofSeconds(60));
            long ahead = redisMillis(redis);
            assertThat(ahead - before).isBetween(60_000L, 60_000L + TOLERANCE_MILLIS);
            assertThat(clock.offset()).isEqualTo(Duration.ofSeconds(60));

            clock.step(Duration.ofSeconds(-90));
            long behind = redisMillis(redis);
            assertThat(ahead - behind).isBetween(90_000L - TOLERANCE_MILLIS, 90_000L);
            assertThat(clock.now().toEpochMilli() - behind).isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);

            clock.reset();
            assertThat(clock.offset()).isZero();
            assertThat(redisMillis(redis) - before).isBetween(0L, TOLERANCE_MILLIS * 4);
        }
    }

    @Test
    void aSkewedRedisClockGainsOnRealTimeWithoutAJump() throws IOException {
        try (RedisServer redis = redisWithStoreClock()) {
            StoreClock clock = redis.storeClock();

            clock.rate(1.5);
            assertThat(clock.currentRate()).isEqualTo(1.5);
            assertThat(clock.offset()).isLessThan(Duration.ofMillis(TOLERANCE_MILLIS));

            await().atMost(GENEROUS).until(() -> clock.offset().compareTo(Duration.ofMillis(600)) >= 0);
            assertThat(clock.now().toEpochMilli() - redisMillis(redis))
                    .as("Redis TIME against the store clock's own account of a 1.5x rate")
                    .isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);

            Duration gained = clock.offset();
            clock.rate(1.0);
            assertThat(clock.offset()).as("stopping the skew keeps what was gained").isGreaterThanOrEqualTo(gained);
            assertThat(clock.now().toEpochMilli() - redisMillis(redis)).isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);
        }
    }

    @Test
    void aRedisStoreClockKeepsItsOffsetAcrossARestart() throws IOException {
        try (RedisServer redis = redisWithStoreClock()) {
            redis.storeClock().step(Duration.ofHours(1));

            redis.restartEmpty();

            assertThat(redis.storeClock().now().toEpochMilli() - redisMillis(redis))
                    .isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);
        }
    }

    @Test
    void postgresNowMovesByTheStepOnAConnectionOpenedBefore() throws SQLException {
        Assumptions.assumeTrue(PostgresServer.whyStoreClockUnavailable().isEmpty(),
                () -> PostgresServer.whyStoreClockUnavailable().orElseThrow());
        try (PostgresServer pg = PostgresServer.builder().withStoreClock().start();
             Connection connection = connect(pg)) {
            StoreClock clock = pg.storeClock();
            long before = postgresNowMillis(connection);
            assertThat(clock.now().toEpochMilli() - before).isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);

            clock.step(Duration.ofSeconds(60));
            long ahead = postgresNowMillis(connection);
            assertThat(ahead - before).isBetween(60_000L, 60_000L + TOLERANCE_MILLIS);

            clock.step(Duration.ofSeconds(-90));
            long behind = postgresNowMillis(connection);
            assertThat(ahead - behind).isBetween(90_000L - TOLERANCE_MILLIS, 90_000L);
            try (Connection fresh = connect(pg)) {
                assertThat(clock.now().toEpochMilli() - postgresNowMillis(fresh))
                        .as("a backend forked after the step reads the same clock")
                        .isBetween(-TOLERANCE_MILLIS, TOLERANCE_MILLIS);
            }
        }
    }

    @Test
    void aServerBuiltWithoutAStoreClockHasNone() {
        try (RedisServer redis = RedisServer.start()) {
            assertThatThrownBy(redis::storeClock).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("withStoreClock()");
        }
    }

    @Test
    void onlyADynamicallyLinkedExecutableCanReadAStoreClock(@TempDir Path dir)
            throws IOException {
        Path script = Files.writeString(dir.resolve("server"), "#!/bin/sh\nexit 0\n");
        assertThat(StoreClockLibrary.dynamicallyLinked(Path.of("/bin/sh"))).isTrue();
        assertThat(StoreClockLibrary.dynamicallyLinked(script)).isFalse();
    }

    @Test
    void aRateOutsideHalfToTwiceIsRefused() throws IOException {
        try (RedisServer redis = redisWithStoreClock()) {
            assertThatThrownBy(() -> redis.storeClock().rate(3.0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rate");
        }
    }

    private static RedisServer redisWithStoreClock() {
        Assumptions.assumeTrue(RedisServer.whyStoreClockUnavailable().isEmpty(),
                () -> RedisServer.whyStoreClockUnavailable().orElseThrow());
        return RedisServer.builder().withStoreClock().start();
    }

    private static long redisMillis(RedisServer redis) throws IOException {
        return Long.parseLong(call(redis, "EVAL", TIME_MILLIS, "0"));
    }

    private static String call(RedisServer redis, String... args) throws IOException {
        return RespProbe.call(redis.host(), redis.port(), GENEROUS, args);
    }

    private static Connection connect(PostgresServer pg) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pg.user());
        properties.setProperty("password", pg.password());
        properties.setProperty("connectTimeout", "10");
        return DriverManager.getConnection(pg.jdbcUrl(), properties);
    }

    /** {@code now()}: the start of the statement's own transaction (autocommit), in milliseconds. */
    private static long postgresNowMillis(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("select (extract(epoch from now()) * 1000)::bigint")) {
            assertThat(result.next()).isTrue();
            return result.getLong(1);
        }
    }
}
