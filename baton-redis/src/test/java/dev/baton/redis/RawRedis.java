package dev.baton.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;

/** A plain Lettuce connection for tests that inspect or tamper with what the store wrote. */
final class RawRedis implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RawRedis(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
        connection.setTimeout(Duration.ofSeconds(5));
    }

    static RawRedis open(String uri) {
        return new RawRedis(uri);
    }

    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
