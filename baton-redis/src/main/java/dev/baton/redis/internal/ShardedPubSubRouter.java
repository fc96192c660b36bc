package dev.baton.redis.internal;

import dev.baton.core.store.Subscription;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded pub/sub on a Redis Cluster (Redis 7 {@code SSUBSCRIBE}): each channel is subscribed on the connection to
 * the master that serves the channel's slot, where {@code SPUBLISH} (from the store or from a script) delivers it.
 * Lease and member notice channels carry the group's hash tag, so they live on the group's own master; message-bus
 * channels each hash to their own slot.
 *
 * <p>Why the router follows the cluster itself: a sharded subscription belongs to one node, and Redis drops it when
 * the node stops serving the slot (a slot migration or a failover answers {@code sunsubscribe} to the subscriber),
 * while Lettuce does not move sharded subscriptions between nodes. So the router remembers on which node each channel
 * is subscribed and, every 500 ms and at once when a node drops a subscription or a node
 * connection reconnects or goes down, subscribes again every channel whose slot is served by another master now (as
 * the client's refreshed topology says), whose node dropped it, or whose last attempt failed; the subscription on the
 * former node is then released ({@code SUNSUBSCRIBE}, best effort). Notices published while a channel moves can be
 * missed, as across any reconnect: they are hints, and an election still polls the lease at its expiry.
 *
 * <p>A handler runs on a Lettuce I/O thread; one that throws is logged without affecting the others. The first
 * {@code SSUBSCRIBE} of a channel completes the subscriptions' {@link Subscription#ready()}; if it fails, ready
 * fails at once and the router keeps trying in the background while the channel has handlers.
 */
public final class ShardedPubSubRouter implements ChannelRouter {

    private static final Logger log = LoggerFactory.getLogger(ShardedPubSubRouter.class);
    private static final long RECONCILE_MILLIS = 500;

    private final RedisClusterClient client;
    private final StatefulRedisClusterPubSubConnection<String, byte[]> connection;
    private final ScheduledExecutorService executor;
    private final StoreFailures failures;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final Set<StatefulRedisPubSubConnection<String, byte[]>> listened = ConcurrentHashMap.newKeySet();
    private final RedisConnectionStateListener connectionEvents = new NodeConnectionEvents();
    private final ScheduledFuture<?> reconciler;
    private boolean closed;

    /**
     * @param client     the cluster client, whose topology says which master serves a slot and whose connection
     *                   events tell when a node connection reconnected
     * @param connection the cluster pub/sub connection whose node connections carry the subscriptions; the router
     *                   sends on them but does not close them
     * @param executor   where reconciliation runs: Lettuce's event executors, so no thread is added
     */
    public ShardedPubSubRouter(RedisClusterClient client,
            StatefulRedisClusterPubSubConnection<String, byte[]> connection, ScheduledExecutorService executor,
            StoreFailures failures) {
        this.client = client;
        this.connection = connection;
        this.executor = executor;
        this.failures = failures;
        client.addListener(connectionEvents);
        this.reconciler = executor.scheduleWithFixedDelay(this::reconcile, RECONCILE_MILLIS, RECONCILE_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized Subscription subscribe(String channel, Consumer<byte[]> handler) {
        if (closed) {
            CompletableFuture<Void> failed = CompletableFuture.failedFuture(
                    failures.translate("subscribe to " + channel, new IllegalStateException("store is closed")));
            return new ChannelSubscription(channel, handler, failed, this::unsubscribe);
        }
        Channel state = channels.get(channel);
        if (state == null) {
            state = new Channel();
            channels.put(channel, state);
            subscribeOnOwner(channel, state);
        }
        state.handlers.add(handler);
        return new ChannelSubscription(channel, handler, state.confirmed, this::unsubscribe);
    }

    @Override
    public synchronized void close() {
        closed = true;
        reconciler.cancel(false);
        client.removeListener(connectionEvents);
        channels.clear();
    }

    /** Subscribes again every channel whose subscription is missing, lost, or on a node that no longer serves it. */
    synchronized void reconcile() {
        if (closed) {
            return;
        }
        channels.forEach((channel, state) -> {
            if (state.pending) {
                return;
            }
            RedisClusterNode owner = owner(channel);
            if (state.node == null || state.lost || owner == null || !owner.getNodeId().equals(state.nodeId)) {
                subscribeOnOwner(channel, state);
            }
        });
    }

    /** Sends {@code SSUBSCRIBE channel} to the master of the channel's slot; called under the router's lock. */
    private void subscribeOnOwner(String channel, Channel state) {
        if (state.confirmed.isCompletedExceptionally()) {
            state.confirmed = new CompletableFuture<>();
        }
        CompletableFuture<Void> attempt = state.confirmed;
        RedisClusterNode owner = owner(channel);
        if (owner == null) {
            attempt.completeExceptionally(failures.translate("subscribe to " + channel,
                    new IllegalStateException("no master serves slot " + SlotHash.getSlot(channel) + " now")));
            client.refreshPartitionsAsync();
            return;
        }
        String ownerId = owner.getNodeId();
        state.pending = true;
        failures.guard("subscribe to " + channel, () -> connection.getConnectionAsync(ownerId).thenCompose(node -> {
            listen(node);
            return node.async().ssubscribe(channel).toCompletableFuture().thenApply(ignored -> node);
        })).whenComplete((node, error) -> subscribed(channel, state, attempt, ownerId, node, error));
    }

    private synchronized void subscribed(String channel, Channel state, CompletableFuture<Void> attempt,
            String ownerId, StatefulRedisPubSubConnection<String, byte[]> node, Throwable error) {
        state.pending = false;
        if (error != null) {
            log.debug("SSUBSCRIBE {} on node {} failed, retrying: {}", channel, ownerId, error.getMessage());
            attempt.completeExceptionally(error);
            if (!closed) {
                // Often a MOVED: the client's map of the cluster is behind; the next reconciliation uses the new one.
                client.refreshPartitionsAsync();
            }
            return;
        }
        StatefulRedisPubSubConnection<String, byte[]> former = state.node;
        state.node = node;
        state.nodeId = ownerId;
        state.lost = false;
        attempt.complete(null);
        if (closed || channels.get(channel) != state) {
            release(node, channel);
        } else if (former != null && former != node) {
            release(former, channel);
        }
    }

    private synchronized void unsubscribe(String channel, Consumer<byte[]> handler) {
        Channel state = channels.get(channel);
        if (state == null || !state.handlers.remove(handler) || !state.handlers.isEmpty()) {
            return;
        }
        channels.remove(channel);
        if (!closed && state.node != null) {
            release(state.node, channel);
        }
    }

    private void release(StatefulRedisPubSubConnection<String, byte[]> node, String channel) {
        failures.guard("unsubscribe from " + channel, () -> node.async().sunsubscribe(channel))
                .exceptionally(error -> {
                    log.debug("SUNSUBSCRIBE {} failed; later messages on it are dropped: {}", channel,
                            error.getMessage());
                    return null;
                });
    }

    private RedisClusterNode owner(String channel) {
        return connection.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
    }

    /** Adds the router's listener to a node connection once. */
    private void listen(StatefulRedisPubSubConnection<String, byte[]> node) {
        if (listened.add(node)) {
            node.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void smessage(String channel, byte[] message) {
                    dispatch(node, channel, message);
                }

                @Override
                public void sunsubscribed(String channel, long count) {
                    dropped(node, channel);
                }
            });
        }
    }

    /**
     * A node said a channel is no longer subscribed there: our own {@code SUNSUBSCRIBE} of a former node (ignored),
     * or the node dropping it because it no longer serves the slot.
     */
    private synchronized void dropped(StatefulRedisPubSubConnection<String, byte[]> node, String channel) {
        Channel state = channels.get(channel);
        if (state != null && state.node == node) {
            state.lost = true;
            reconcileSoon();
        }
    }

    /** Every channel subscribed through {@code node} must be subscribed again: it reconnected or went down. */
    private synchronized void nodeInterrupted(Object node) {
        boolean any = false;
        for (Channel state : channels.values()) {
            if (state.node == node) {
                state.lost = true;
                any = true;
            }
        }
        if (any) {
            reconcileSoon();
        }
    }

    private void reconcileSoon() {
        try {
            executor.execute(this::reconcile);
        } catch (RejectedExecutionException e) {
            log.debug("Not reconciling sharded subscriptions: the store is shutting down");
        }
    }

    private void dispatch(StatefulRedisPubSubConnection<String, byte[]> node, String channel, byte[] message) {
        Channel state = channels.get(channel);
        // Only from the node the channel is subscribed on now: a former node may still deliver until it released it.
        if (state == null || state.node != node) {
            return;
        }
        for (Consumer<byte[]> handler : state.handlers) {
            try {
                handler.accept(message.clone());
            } catch (RuntimeException e) {
                log.warn("A handler of channel {} failed; other handlers still run", channel, e);
            }
        }
    }

    /** Reconnects and disconnects of the node connections carrying subscriptions. */
    private final class NodeConnectionEvents implements RedisConnectionStateListener {

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> handler, java.net.SocketAddress address) {
            nodeInterrupted(handler);
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
            nodeInterrupted(handler);
        }
    }

    /** Handlers of one channel, where it is subscribed, and the confirmation of its latest attempt. Under the lock. */
    private static final class Channel {
        final List<Consumer<byte[]>> handlers = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Void> confirmed = new CompletableFuture<>();
        StatefulRedisPubSubConnection<String, byte[]> node;
        String nodeId;
        boolean pending;
        boolean lost;
    }
}
