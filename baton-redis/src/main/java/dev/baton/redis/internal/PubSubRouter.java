package dev.baton.redis.internal;

import dev.baton.core.store.Subscription;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Shares one pub/sub connection among all of a store's subscriptions. The first handler of a channel has the channel
 * subscribed, the last one to close has it unsubscribed; messages are dispatched by channel on Lettuce's I/O thread,
 * and a handler that throws is logged without affecting the others.
 *
 * <p>Channels are subscribed and unsubscribed in batches: a channel asked for waits for the next round, which sends
 * one {@code UNSUBSCRIBE} and one {@code SUBSCRIBE} naming every channel that changed since the last (up to
 * {@value #MAX_BATCH} each). A process that starts or closes ten thousand elections at once sends a few dozen commands
 * instead of twenty thousand. A channel's subscriptions are {@linkplain Subscription#ready() ready} once the command
 * that names it is confirmed; a channel subscribed and unsubscribed before its round goes out is never sent.
 *
 * <p>After a reconnect Lettuce subscribes again to every channel the server had confirmed. A {@code SUBSCRIBE} that
 * fails (typically because Redis is unreachable) fails the subscriptions' {@link Subscription#ready()} at once, and
 * the router keeps retrying it in the background while the channel has handlers, so a watcher started during an
 * outage still receives notices once Redis is back.
 */
public final class PubSubRouter implements ChannelRouter {

    private static final Logger log = LoggerFactory.getLogger(PubSubRouter.class);
    private static final long RETRY_MILLIS = 1000;
    /** At most this many channels per {@code SUBSCRIBE} or {@code UNSUBSCRIBE} command. */
    static final int MAX_BATCH = 1000;

    private final StatefulRedisPubSubConnection<String, byte[]> connection;
    private final ScheduledExecutorService retries;
    private final StoreFailures failures;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Channels to subscribe and to unsubscribe in the next round; guarded by the router's lock. */
    private final Map<String, Channel> toSubscribe = new LinkedHashMap<>();
    private final Set<String> toUnsubscribe = new LinkedHashSet<>();
    private boolean roundQueued;
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
            // Its UNSUBSCRIBE may not have gone out yet; subscribing again confirms it either way.
            toUnsubscribe.remove(channel);
            toSubscribe.put(channel, state);
            queueRound();
        }
        state.handlers.add(handler);
        return new ChannelSubscription(channel, handler, state.confirmed, this::unsubscribe);
    }

    /** Drops every subscription; nothing is delivered afterwards. The connection's owner closes it. */
    @Override
    public synchronized void close() {
        closed = true;
        channels.clear();
        toSubscribe.clear();
        toUnsubscribe.clear();
    }

    private void queueRound() {
        if (roundQueued) {
            return;
        }
        roundQueued = true;
        try {
            retries.execute(this::sendRound);
        } catch (RejectedExecutionException e) {
            roundQueued = false;
            log.debug("Not sending (UN)SUBSCRIBE: the store is shutting down");
        }
    }

    /**
     * Sends the waiting changes, unsubscribes first: the commands go out on the one connection in the order they are
     * sent here, under the lock, so a channel's latest change is the one the server applies last.
     */
    private synchronized void sendRound() {
        roundQueued = false;
        if (closed) {
            return;
        }
        if (!toUnsubscribe.isEmpty()) {
            List<String> batch = take(toUnsubscribe.iterator());
            String[] names = batch.toArray(String[]::new);
            failures.guard("unsubscribe from " + batch.size() + " channels",
                    () -> connection.async().unsubscribe(names)).exceptionally(error -> {
                        log.debug("UNSUBSCRIBE of {} channels failed; later messages on them are dropped: {}",
                                names.length, error.getMessage());
                        return null;
                    });
        }
        if (!toSubscribe.isEmpty()) {
            Map<String, Channel> batch = new LinkedHashMap<>();
            var entries = toSubscribe.entrySet().iterator();
            while (entries.hasNext() && batch.size() < MAX_BATCH) {
                Map.Entry<String, Channel> next = entries.next();
                entries.remove();
                if (channels.get(next.getKey()) == next.getValue()) {
                    batch.put(next.getKey(), next.getValue());
                }
            }
            if (!batch.isEmpty()) {
                sendSubscribe(batch);
            }
        }
        if (!toSubscribe.isEmpty() || !toUnsubscribe.isEmpty()) {
            queueRound();
        }
    }

    private static List<String> take(java.util.Iterator<String> names) {
        List<String> batch = new ArrayList<>();
        while (names.hasNext() && batch.size() < MAX_BATCH) {
            batch.add(names.next());
            names.remove();
        }
        return batch;
    }

    private void sendSubscribe(Map<String, Channel> batch) {
        Map<String, CompletableFuture<Void>> attempts = new LinkedHashMap<>();
        batch.forEach((channel, state) -> attempts.put(channel, state.confirmed));
        String[] names = batch.keySet().toArray(String[]::new);
        String what = names.length == 1 ? "subscribe to " + names[0] : "subscribe to " + names.length + " channels";
        failures.guard(what, () -> connection.async().subscribe(names))
                .whenComplete((ignored, error) -> {
                    if (error == null) {
                        attempts.values().forEach(attempt -> attempt.complete(null));
                    } else {
                        attempts.values().forEach(attempt -> attempt.completeExceptionally(error));
                        batch.forEach(this::scheduleRetry);
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
        toSubscribe.put(channel, state);
        queueRound();
    }

    private synchronized void unsubscribe(String channel, Consumer<byte[]> handler) {
        Channel state = channels.get(channel);
        if (state == null || !state.handlers.remove(handler) || !state.handlers.isEmpty()) {
            return;
        }
        channels.remove(channel);
        if (closed) {
            return;
        }
        if (toSubscribe.remove(channel) == null) {
            toUnsubscribe.add(channel);
            queueRound();
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
