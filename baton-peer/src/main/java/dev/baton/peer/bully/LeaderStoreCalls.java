package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.time.Scheduler;
import dev.baton.core.time.Scheduler.Cancellable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The node's calls to its {@link LeaderRecordStore}, each bounded by storeTimeout and answered on the node's
 * scheduler: exactly one of the two callbacks runs, there. A call that has not answered in time fails; its late
 * answer is dropped (a write may still have been applied: the node re-reads the record before it relies on it).
 */
final class LeaderStoreCalls {

    private final LeaderRecordStore store;
    private final String group;
    private final Scheduler scheduler;
    private final Duration timeout;

    LeaderStoreCalls(LeaderRecordStore store, String group, Scheduler scheduler, Duration timeout) {
        this.store = store;
        this.group = group;
        this.scheduler = scheduler;
        this.timeout = timeout;
    }

    String describe() {
        return store.describe();
    }

    /** The seed's {@code GetDBLeader}. */
    void read(Consumer<Optional<LeaderRecord>> onRecord, Consumer<String> onFailure) {
        call("read", () -> store.readLeader(group), onRecord, onFailure);
    }

    /** The seed's {@code SetDBLeader}, a compare-and-set on the term. */
    void write(LeaderRecord record, Consumer<LeaderRecordWrite> onAnswer, Consumer<String> onFailure) {
        call("write", () -> store.writeLeader(record), onAnswer, onFailure);
    }

    private <T> void call(String what, Supplier<CompletableFuture<T>> request, Consumer<T> onAnswer,
            Consumer<String> onFailure) {
        boolean[] settled = {false};
        CompletableFuture<T> future;
        try {
            future = request.get();
        } catch (RuntimeException e) {
            scheduler.execute(() -> onFailure.accept(failure(what, e)));
            return;
        }
        Cancellable timer = scheduler.schedule(timeout, () -> {
            if (!settled[0]) {
                settled[0] = true;
                onFailure.accept("leader store " + store.describe() + ": " + what + " timed out after "
                        + timeout.toMillis() + " ms");
            }
        });
        future.whenComplete((value, error) -> scheduler.execute(() -> {
            if (settled[0]) {
                return;
            }
            settled[0] = true;
            timer.cancel();
            if (error != null) {
                onFailure.accept(failure(what, error));
            } else {
                onAnswer.accept(value);
            }
        }));
    }

    private String failure(String what, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String message = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        return "leader store " + store.describe() + ": " + what + " failed: " + message;
    }
}
