package dev.baton.postgres.internal;

import dev.baton.core.store.Subscription;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the schema channel's payloads to subscribers by kind and name (a group's lease or member notices, or a
 * message channel), so one LISTEN serves every watch and subscription of the store. Subscribing costs no round trip
 * once the LISTEN connection is up; a handler that throws is logged without affecting the others.
 */
public final class NoticeRouter {

    private static final Logger log = LoggerFactory.getLogger(NoticeRouter.class);

    private record Key(NoticePayload.Kind kind, String name) {
    }

    private final Map<Key, List<Consumer<NoticePayload>>> handlers = new ConcurrentHashMap<>();
    private volatile PgListener listener;

    /** Connects the router to its listener; called once, before the first subscription. */
    public void attach(PgListener source) {
        this.listener = source;
    }

    /** Delivers every payload of {@code kind} for {@code name} to {@code handler} until the subscription closes. */
    public Subscription subscribe(NoticePayload.Kind kind, String name, Consumer<NoticePayload> handler) {
        Key key = new Key(kind, name);
        handlers.compute(key, (k, list) -> {
            List<Consumer<NoticePayload>> updated = list != null ? list : new CopyOnWriteArrayList<>();
            updated.add(handler);
            return updated;
        });
        CompletableFuture<Void> ready = listener.ready();
        return new RoutedSubscription(key, handler, ready);
    }

    /** Dispatches one payload as received by the listener; malformed ones are logged and dropped. */
    public void dispatch(String payload) {
        NoticePayload notice;
        try {
            notice = NoticePayload.decode(payload);
        } catch (IllegalArgumentException e) {
            log.warn("Dropping a notification that is not Baton's: {}", e.getMessage());
            return;
        }
        List<Consumer<NoticePayload>> subscribers = handlers.get(new Key(notice.kind(), notice.name()));
        if (subscribers == null) {
            return;
        }
        for (Consumer<NoticePayload> handler : subscribers) {
            try {
                handler.accept(notice);
            } catch (RuntimeException e) {
                log.warn("A handler of {} {} failed; other handlers still run", notice.kind().word(), notice.name(),
                        e);
            }
        }
    }

    /** Drops every subscription; nothing is delivered afterwards. */
    public void close() {
        handlers.clear();
    }

    private void unsubscribe(Key key, Consumer<NoticePayload> handler) {
        handlers.computeIfPresent(key, (k, list) -> {
            list.remove(handler);
            return list.isEmpty() ? null : list;
        });
    }

    private final class RoutedSubscription implements Subscription {
        private final Key key;
        private final Consumer<NoticePayload> handler;
        private final CompletableFuture<Void> ready;
        private boolean closed;

        RoutedSubscription(Key key, Consumer<NoticePayload> handler, CompletableFuture<Void> ready) {
            this.key = key;
            this.handler = handler;
            this.ready = ready.copy();
        }

        @Override
        public CompletableFuture<Void> ready() {
            return ready;
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                unsubscribe(key, handler);
            }
        }
    }
}
