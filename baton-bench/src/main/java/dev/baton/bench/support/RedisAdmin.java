package dev.baton.bench.support;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A plain Lettuce connection the benchmarks use to look at the private Redis from the outside: pub/sub subscriber
 * counts (to know a contender is waiting), {@code INFO commandstats} (to count commands), and round-trip time.
 * It is never one of the measured candidates' connections.
 */
public final class RedisAdmin implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> commands;
    private final StatefulRedisConnection<String, byte[]> binary;

    private RedisAdmin(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        this.commands = connection.sync();
        this.binary = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    }

    public static RedisAdmin connect(String uri) {
        return new RedisAdmin(uri);
    }

    public RedisCommands<String, String> commands() {
        return commands;
    }

    /** How many connections are subscribed to {@code channel}. */
    public long subscribers(String channel) {
        Map<String, Long> counts = commands.pubsubNumsub(channel);
        return counts.getOrDefault(channel, 0L);
    }

    /**
     * Waits until at least {@code count} connections are subscribed to {@code channel}, polling every millisecond.
     *
     * @return whether the count was reached before {@code timeout}
     */
    public boolean awaitSubscribers(String channel, long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (subscribers(channel) < count) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** {@code INFO commandstats} as command name -> calls so far, e.g. {@code evalsha -> 10012}. */
    public Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : commands.info("commandstats").split("\r?\n")) {
            // cmdstat_evalsha:calls=10012,usec=...,usec_per_call=...
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            for (String field : line.substring(colon + 1).split(",")) {
                if (field.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(field.substring("calls=".length())));
                }
            }
        }
        return calls;
    }

    /**
     * {@code HGETALL key} with values left as raw bytes: the transfer a registry listing cannot avoid, without any
     * decoding. Returns the total size of the values in bytes.
     */
    public long hashValueBytes(String key) {
        long bytes = 0;
        for (byte[] value : binary.sync().hgetall(key).values()) {
            bytes += value.length;
        }
        return bytes;
    }

    /** {@code total_commands_processed} from {@code INFO stats}: every command the server ran so far, this one not. */
    public long totalCommandsProcessed() {
        for (String line : commands.info("stats").split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring("total_commands_processed:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO stats has no total_commands_processed");
    }

    /** The server's {@code redis_version}. */
    public String version() {
        for (String line : commands.info("server").split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "unknown";
    }

    @Override
    public void close() {
        binary.close();
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
