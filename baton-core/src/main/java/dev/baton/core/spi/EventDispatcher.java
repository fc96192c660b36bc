package dev.baton.core.spi;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionListener;
import dev.baton.core.Registration;
import dev.baton.core.internal.SerialExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers an election's events to its listeners with the contract {@link ElectionListener} promises: to each
 * listener one event at a time and in the order emitted, on the listener's executor (the dispatcher's default one
 * unless the listener brought its own); a listener that throws is logged and keeps receiving events; a listener whose
 * executor refuses the task misses that event, with a warning.
 *
 * <p>A backend's election owns one dispatcher and emits from its state machine's thread; {@link #emit} returns at
 * once, and its future says when every listener has returned, for an election that must wait for its listeners to
 * stop acting before it gives something up (a lease released only once {@code LeadershipLost} was handled).
 * {@link #deliveringOnThisThread()} lets the election recognise a call that comes from inside a listener, which must
 * not wait for the listeners to return. Thread-safe.
 */
public final class EventDispatcher {

    private static final Logger log = LoggerFactory.getLogger(EventDispatcher.class);

    private final Executor defaultExecutor;
    private final List<Target> targets = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Boolean> delivering = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /** A dispatcher whose listeners run on {@code defaultExecutor} unless they are added with their own. */
    public EventDispatcher(Executor defaultExecutor) {
        this.defaultExecutor = defaultExecutor;
    }

    private record Target(ElectionListener listener, SerialExecutor executor) {
    }

    /** Adds a listener on the default executor; closing the registration removes it. */
    public Registration add(ElectionListener listener) {
        return add(listener, defaultExecutor);
    }

    /** Adds a listener on {@code executor}, which gets one task per event, each after the previous one finished. */
    public Registration add(ElectionListener listener, Executor executor) {
        Target target = new Target(listener, new SerialExecutor(executor));
        targets.add(target);
        return () -> targets.remove(target);
    }

    /** True while the current thread is running one of this dispatcher's listeners. */
    public boolean deliveringOnThisThread() {
        return delivering.get();
    }

    /** Queues {@code event} for every listener; the future completes when every listener has returned from it. */
    public CompletableFuture<Void> emit(ElectionEvent event) {
        List<Target> now = List.copyOf(targets);
        if (now.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] done = new CompletableFuture<?>[now.size()];
        for (int i = 0; i < now.size(); i++) {
            Target target = now.get(i);
            CompletableFuture<Void> delivered = new CompletableFuture<>();
            done[i] = delivered;
            try {
                target.executor().execute(() -> {
                    delivering.set(Boolean.TRUE);
                    try {
                        target.listener().onEvent(event);
                    } catch (RuntimeException | Error e) {
                        log.error("Listener {} failed on {}", target.listener(), event.name(), e);
                    } finally {
                        delivering.set(Boolean.FALSE);
                        delivered.complete(null);
                    }
                });
            } catch (RuntimeException rejected) {
                log.warn("Could not deliver {} to {}: {}", event.name(), target.listener(), rejected.toString());
                delivered.complete(null);
            }
        }
        return CompletableFuture.allOf(done);
    }
}
