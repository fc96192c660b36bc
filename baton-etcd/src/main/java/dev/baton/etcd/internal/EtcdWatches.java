package dev.baton.etcd.internal;

import dev.baton.core.store.Subscription;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns etcd watches into {@link Subscription}s: every watch asks for the previous value of changed keys (so a
 * deletion still says whose lease it was) and for etcd's created notice, which completes {@link Subscription#ready()}.
 * jetcd resumes a watch from its last revision on another member when its member fails or loses the etcd leader, so
 * no change is skipped across a member loss unless etcd compacted past it meanwhile.
 */
public final class EtcdWatches {

    private static final Logger log = LoggerFactory.getLogger(EtcdWatches.class);

    private final Watch watch;
    private final String target;
    private final Set<EtcdSubscription> open = ConcurrentHashMap.newKeySet();

    public EtcdWatches(Watch watch, String target) {
        this.watch = watch;
        this.target = target;
    }

    /**
     * Watches {@code key} (or every key under it, with {@code prefix}) and hands each event to {@code handler} on
     * jetcd's thread, until the subscription is closed. A handler's exception is logged and the watch goes on.
     */
    public Subscription watch(ByteSequence key, boolean prefix, Consumer<WatchEvent> handler) {
        EtcdSubscription subscription = new EtcdSubscription(key, prefix, handler);
        open.add(subscription);
        return subscription;
    }

    /** Closes every subscription still open: the store is closing, and their watches end with its client. */
    public void closeAll() {
        List.copyOf(open).forEach(EtcdSubscription::close);
    }

    private final class EtcdSubscription implements Subscription {

        private final CompletableFuture<Void> ready = new CompletableFuture<>();
        private final AtomicBoolean closed = new AtomicBoolean();
        private final Watch.Watcher watcher;
        private final String key;

        EtcdSubscription(ByteSequence key, boolean prefix, Consumer<WatchEvent> handler) {
            this.key = GroupKeys.text(key);
            // A member cut off from the etcd leader ends its watches instead of going quiet, so jetcd moves them.
            WatchOption.Builder option = WatchOption.builder().withPrevKV(true).withCreateNotify(true)
                    .withRequireLeader(true);
            if (prefix) {
                option.isPrefix(true);
            }
            this.watcher = watch.watch(key, option.build(), new Watch.Listener() {
                @Override
                public void onNext(WatchResponse response) {
                    if (response.isCreatedNotify()) {
                        ready.complete(null);
                    }
                    for (WatchEvent event : response.getEvents()) {
                        if (closed.get()) {
                            return;
                        }
                        try {
                            handler.accept(event);
                        } catch (RuntimeException e) {
                            log.warn("Watch handler for {} failed", EtcdSubscription.this.key, e);
                        }
                    }
                }

                /**
                 * jetcd reports every interruption here, then resumes the watch from the last revision it saw
                 * (on another member if need be) unless the error is final. Notices are hints, so a gap costs only
                 * a push: followers still wake at the expiry they read.
                 */
                @Override
                public void onError(Throwable error) {
                    if (!closed.get()) {
                        log.info("Watch of {} on {} interrupted, resuming: {}", EtcdSubscription.this.key, target,
                                EtcdCalls.shortReason(error));
                    }
                    ready.completeExceptionally(error);
                }

                @Override
                public void onCompleted() {
                    ready.completeExceptionally(new IllegalStateException("watch closed"));
                }
            });
        }

        @Override
        public CompletableFuture<Void> ready() {
            return ready;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                open.remove(this);
                watcher.close();
            }
        }
    }
}
