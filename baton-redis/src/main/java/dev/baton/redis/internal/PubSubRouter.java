package dev.baton.redis.internal;

import dev.baton.core.store.Subscription;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares one pub/sub connection among all of a store's subscriptions. The first handler of a channel sends
 * {@code SUBSCRIBE}, the last one to close sends {@code UNSUBSCRIBE}; messages are dispatched by channel on Lettuce's
 * I/O thread, and a handler that throws is logged without affecting the others.
 *
 * <p>After a reconnect Lettuce subscribes again to every channel the server had confirmed. A {@code SUBSCRIBE} that
 * fails (typically because Redis is unreachable) fails the subscriptions' {@link Subscription#ready()} at once, and
 * the router keeps retrying it in the background while the channel has handlers, so a watcher started during an
 * outage still receives notices once Redis is back.
 */
public final class PubSubRouter implements ChannelRouter {

    private static final Logger log = LoggerFactory.getLogger(PubSubRouter.class);
    private static final long RETRY_MILLIS = 1000;

    private final StatefulRedisPubSubConnection<String, byte[]> connection;
    private final ScheduledExecutorService retries;
    private final StoreFailures failures;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private boolean closed;

    /**
     * @param connection the pub/sub connection; the router sends on it but does not close it
     * @param retries    where background re-subscriptions run; Lettuce's event executors, so no thread is added
     */
    public PubSubRouter(StatefulRedisPubSubConnection<String, byte[]> connection, ScheduledExecutorService retries,
            StoreFailures failures) {
        this.connection = connection;
        this.retries = retries;
        this.failures = failures;
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, byte[] message) {
                dispatch(channel, message);
            }
        });
    }

    /** Delivers every message on {@code channel} to {@code handler} until the returned subscription is closed. */
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
            sendSubscribe(channel, state);
        }
        state.handlers.add(handler);
        return new ChannelSubscription(channel, handler, state.confirmed, this::unsubscribe);
    }

    /** Drops every subscription; nothing is delivered afterwards. The connection's owner closes it. */
    @Override
    public synchronized void close() {
        closed = true;
        channels.clear();
    }

    private void sendSubscribe(String channel, Channel state) {
        CompletableFuture<Void> attempt = state.confirmed;
        failures.guard("subscribe to " + channel, () -> connection.async().subscribe(channel))
                .whenComplete((ignored, error) -> {
                    if (error == null) {
                        attempt.complete(null);
                    } else {
                        attempt.completeExceptionally(error);
                        scheduleRetry(channel, state);
                    }
                });
    }

    private void scheduleRetry(String channel, Channel state) {
        try {
            retries.schedule(() -> retry(channel, state), RETRY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Not retrying SUBSCRIBE {}: the store is shutting down", channel);
        }
    }

    private synchronized void retry(String channel, Channel state) {
        if (closed || channels.get(channel) != state) {
            return;
        }
        state.confirmed = new CompletableFuture<>();
        sendSubscribe(channel, state);
    }

    private synchronized void unsubscribe(String channel, Consumer<byte[]> handler) {
        Channel state = channels.get(channel);
        if (state == null || !state.handlers.remove(handler) || !state.handlers.isEmpty()) {
            return;
        }
        channels.remove(channel);
        if (!closed) {
            failures.guard("unsubscribe from " + channel, () -> connection.async().unsubscribe(channel))
                    .exceptionally(error -> {
                        log.debug("UNSUBSCRIBE {} failed; later messages on it are dropped: {}", channel,
                                error.getMessage());
                        return null;
                    });
        }
    }

    private void dispatch(String channel, byte[] message) {
        Channel state = channels.get(channel);
        if (state == null) {
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

    /** Handlers of one channel and the confirmation of its latest SUBSCRIBE. Mutated under the router's lock. */
    private static final class Channel {
        final List<Consumer<byte[]>> handlers = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Void> confirmed = new CompletableFuture<>();
    }
}
