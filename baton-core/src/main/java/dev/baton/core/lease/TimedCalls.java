package dev.baton.core.lease;

import dev.baton.core.ElectionMetrics;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Runs store calls for a state machine: each call is bounded by a timeout on the machine's scheduler, and its outcome
 * (reply, failure or timeout, whichever comes first) is handed back on the scheduler exactly once. A reply that
 * arrives after the timeout is dropped. A call may be started from any thread; its outcome always runs on the
 * scheduler. Every reply the store gives (in time or late) is reported to the {@link StoreLink}, so the election knows
 * when it last heard from its store.
 */
final class TimedCalls {

    private final Scheduler scheduler;
    private final Clock clock;
    private final ElectionMetrics metrics;
    private final StoreLink link;

    TimedCalls(Scheduler scheduler, Clock clock, ElectionMetrics metrics, StoreLink link) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.metrics = metrics;
        this.link = link;
    }

    <T> void call(String what, Duration timeout, Supplier<CompletableFuture<T>> operation,
            BiConsumer<T, Throwable> handler) {
        call(what, timeout, operation, handler, null);
    }

    /**
     * Like {@link #call(String, Duration, Supplier, BiConsumer)}, and a successful reply that arrives after the
     * timeout goes to {@code lateReply} (on the scheduler) instead of being dropped: for operations whose late effect
     * must be undone, such as a lease granted to a caller that stopped waiting.
     */
    <T> void call(String what, Duration timeout, Supplier<CompletableFuture<T>> operation,
            BiConsumer<T, Throwable> handler, java.util.function.Consumer<T> lateReply) {
        long started = clock.nanoTime();
        Outcome<T> outcome = new Outcome<>((value, error) -> {
            metrics.storeCall(what, clock.nanoTime() - started, error == null);
            handler.accept(value, error);
        }, lateReply);
        outcome.timer = scheduler.schedule(timeout,
                () -> outcome.finish(null, new StoreTimeoutException(what + " timed out after " + timeout.toMillis()
                        + " ms")));
        CompletableFuture<T> future;
        try {
            future = operation.get();
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        future.whenComplete((value, error) -> scheduler.execute(() -> {
            if (error == null) {
                link.replied();
            }
            outcome.finish(value, unwrap(error));
        }));
    }

    static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** Confined to the scheduler's thread, so plain fields suffice. */
    private static final class Outcome<T> {
        private final BiConsumer<T, Throwable> handler;
        private final java.util.function.Consumer<T> lateReply;
        // Written by the calling thread (which may be a listener's thread, for a release), read on the scheduler.
        private volatile Scheduler.Cancellable timer = Scheduler.Cancellable.NONE;
        private boolean done;

        Outcome(BiConsumer<T, Throwable> handler, java.util.function.Consumer<T> lateReply) {
            this.handler = handler;
            this.lateReply = lateReply;
        }

        void finish(T value, Throwable error) {
            if (done) {
                if (lateReply != null && error == null && value != null) {
                    lateReply.accept(value);
                }
                return;
            }
            done = true;
            timer.cancel();
            handler.accept(value, error);
        }
    }
}
