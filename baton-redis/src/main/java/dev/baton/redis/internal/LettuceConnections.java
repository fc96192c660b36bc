package dev.baton.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Lettuce objects behind a store on one server or a Sentinel-watched primary: its own {@link ClientResources} (so
 * closing the store leaves no threads), a client configured to fail fast, a command connection and a pub/sub
 * connection. Keys are UTF-8 strings, values raw bytes.
 *
 * <p>Both connections share one I/O thread (see {@link #open}).
 *
 * <p>Failure behaviour, chosen for an election that must notice trouble before its lease runs out: every command
 * times out after the command timeout; while disconnected, commands are rejected at once instead of queued; at most
 * {@value #REQUEST_QUEUE_SIZE} commands may be in flight; reconnects are automatic, backing off from 10 ms to 1 s.
 */
public final class LettuceConnections implements RedisConnections {

    /**
     * Bounds the commands awaiting replies, so a hung server cannot absorb unbounded work; high enough for a process
     * that starts ten thousand groups at once (an acquire, a join and an event each) on one connection.
     */
    public static final int REQUEST_QUEUE_SIZE = 65_536;

    /** Keys as UTF-8 strings, values as raw bytes. */
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, byte[]> commands;
    private final StatefulRedisPubSubConnection<String, byte[]> pubSub;

    private LettuceConnections(ClientResources resources, RedisClient client,
            StatefulRedisConnection<String, byte[]> commands, StatefulRedisPubSubConnection<String, byte[]> pubSub) {
        this.resources = resources;
        this.client = client;
        this.commands = commands;
        this.pubSub = pubSub;
    }

    /**
     * Connects both connections; blocks for at most about two connect plus command timeouts. On failure everything
     * created so far is shut down before the exception propagates.
     */
    public static LettuceConnections open(RedisURI uri, Duration commandTimeout, Duration connectTimeout) {
        // One I/O thread for both connections: a lease notice read from the pub/sub connection and the acquire an
        // armed follower sends in reply leave from the same event loop, so the write needs no wake-up of another
        // thread, and the store starts one thread fewer.
        ClientResources resources = LettuceResources.create(1);
        RedisURI target = withTimeout(uri, commandTimeout);
        RedisClient client = RedisClient.create(resources, target);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(REQUEST_QUEUE_SIZE)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
                .protocolVersion(ProtocolVersion.RESP2)
                .build());
        StatefulRedisConnection<String, byte[]> commands = null;
        try {
            commands = client.connect(CODEC);
            StatefulRedisPubSubConnection<String, byte[]> pubSub = client.connectPubSub(CODEC);
            return new LettuceConnections(resources, client, commands, pubSub);
        } catch (RuntimeException e) {
            if (commands != null) {
                commands.close();
            }
            LettuceResources.shutdown(client, resources);
            throw e;
        }
    }

    /**
     * A copy of {@code uri} with the command timeout. {@code RedisURI.builder(RedisURI)} drops the Sentinels, so a
     * Sentinel URI is rebuilt from its parts: each reconnect then asks the Sentinels for the primary again.
     */
    private static RedisURI withTimeout(RedisURI uri, Duration commandTimeout) {
        if (uri.getSentinels().isEmpty()) {
            return RedisURI.builder(uri).withTimeout(commandTimeout).build();
        }
        RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(uri.getSentinelMasterId())
                .withDatabase(uri.getDatabase()).withTimeout(commandTimeout).withSsl(uri.isSsl())
                .withAuthentication(uri);
        uri.getSentinels().forEach(builder::withSentinel);
        return builder.build();
    }

    @Override
    public RedisClusterAsyncCommands<String, byte[]> commands() {
        return commands.async();
    }

    /** The command connection: every write goes over it. */
    @Override
    public CompletableFuture<RedisClusterAsyncCommands<String, byte[]>> writerOf(String key) {
        return CompletableFuture.completedFuture(commands.async());
    }

    @Override
    public CompletableFuture<Long> publish(String channel, byte[] message) {
        return commands.async().publish(channel, message).toCompletableFuture();
    }

    @Override
    public ChannelRouter router(StoreFailures failures) {
        return new PubSubRouter(pubSub, resources.eventExecutorGroup(), failures);
    }

    @Override
    public boolean sharded() {
        return false;
    }

    /** Closes both connections and shuts the client and its resources down; waits up to a few seconds. */
    @Override
    public void close() {
        try {
            pubSub.close();
            commands.close();
        } finally {
            LettuceResources.shutdown(client, resources);
        }
    }
}
