package dev.baton.redis.internal;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.protocol.ConnectionIntent;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Lettuce objects behind a store on a Redis Cluster: a {@link RedisClusterClient} that discovers the cluster from
 * the seed nodes, a command connection that sends each keyed command to the master of its slot (every key of a group
 * shares the group's hash tag, so every script runs on one node) and a pub/sub connection whose per-node connections
 * carry the sharded subscriptions ({@link ShardedPubSubRouter}).
 *
 * <p>Following the cluster: {@code MOVED} and {@code ASK} redirections are followed (up to five), and they,
 * persistent reconnects and uncovered slots trigger a topology refresh (at most one per 200 ms); the topology is also
 * refreshed every second, so a failover that produced no redirection yet (a crashed master) is found within that
 * period. Connections to nodes that left the topology are closed. Otherwise the same fail-fast settings as {@link LettuceConnections}.
 */
public final class ClusterConnections implements RedisConnections {

    /** How often the topology is refreshed without a trigger: well below any sensible lease TTL. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(1);
    /** The shortest time between two triggered refreshes. */
    static final Duration ADAPTIVE_REFRESH_TIMEOUT = Duration.ofMillis(200);
    static final int MAX_REDIRECTS = 5;

    private final ClientResources resources;
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, byte[]> commands;
    private final StatefulRedisClusterPubSubConnection<String, byte[]> pubSub;

    private ClusterConnections(ClientResources resources, RedisClusterClient client,
            StatefulRedisClusterConnection<String, byte[]> commands,
            StatefulRedisClusterPubSubConnection<String, byte[]> pubSub) {
        this.resources = resources;
        this.client = client;
        this.commands = commands;
        this.pubSub = pubSub;
    }

    /**
     * Discovers the cluster from {@code seeds} and connects; blocks for at most a few connect and command timeouts.
     * On failure everything created so far is shut down before the exception propagates.
     */
    public static ClusterConnections open(List<RedisURI> seeds, Duration commandTimeout, Duration connectTimeout) {
        ClientResources resources = LettuceResources.create(2); // several masters: two event loops
        List<RedisURI> targets = seeds.stream().map(s -> RedisURI.builder(s).withTimeout(commandTimeout).build())
                .toList();
        RedisClusterClient client = RedisClusterClient.create(resources, targets);
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClusterClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(LettuceConnections.REQUEST_QUEUE_SIZE)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
                .protocolVersion(ProtocolVersion.RESP2)
                .maxRedirects(MAX_REDIRECTS)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(PERIODIC_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_TIMEOUT)
                        .refreshTriggersReconnectAttempts(2)
                        .dynamicRefreshSources(true)
                        .closeStaleConnections(true)
                        .build())
                .build());
        StatefulRedisClusterConnection<String, byte[]> commands = null;
        try {
            commands = client.connect(LettuceConnections.CODEC);
            StatefulRedisClusterPubSubConnection<String, byte[]> pubSub =
                    client.connectPubSub(LettuceConnections.CODEC);
            return new ClusterConnections(resources, client, commands, pubSub);
        } catch (RuntimeException e) {
            if (commands != null) {
                commands.close();
            }
            LettuceResources.shutdown(client, resources);
            throw e;
        }
    }

    @Override
    public RedisClusterAsyncCommands<String, byte[]> commands() {
        return commands.async();
    }

    /**
     * The connection to the master that serves {@code key}'s slot now: the same pooled connection the command
     * connection routes the key's writes over (Lettuce keys both by intent, host and port). If the slot moved between
     * the write and this call, this is another node's connection; that race is one of the reasons
     * {@code waitReplicas} narrows the asynchronous-replication window rather than closing it.
     */
    @Override
    public CompletableFuture<RedisClusterAsyncCommands<String, byte[]>> writerOf(String key) {
        RedisClusterNode master = commands.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("no master serves the slot of " + key));
        }
        return commands.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort(),
                ConnectionIntent.WRITE).thenApply(connection -> connection.async());
    }

    /** {@code SPUBLISH}, sent to the master of the channel's slot. */
    @Override
    public CompletableFuture<Long> publish(String channel, byte[] message) {
        return commands.async().spublish(channel, message).toCompletableFuture();
    }

    @Override
    public ChannelRouter router(StoreFailures failures) {
        return new ShardedPubSubRouter(client, pubSub, resources.eventExecutorGroup(), failures);
    }

    @Override
    public boolean sharded() {
        return true;
    }

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
