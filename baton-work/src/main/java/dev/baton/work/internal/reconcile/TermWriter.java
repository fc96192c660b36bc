package dev.baton.work.internal.reconcile;

import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.time.Scheduler;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The leader's writes to the group's fenced maps, all under its term: the store itself refuses them once a newer
 * term exists, whatever this process believes. A refusal means this leader is deposed: {@code deposed} is told and
 * neither callback runs. Nothing is written once the role is deactivated; callbacks run on the scheduler, and only
 * while the role is still active. A write asked for while the leadership is not valid ({@code valid} false: past
 * its local deadline, say a process frozen for a while, before its election has noticed) is not sent: it fails at
 * once with {@link LeadershipNotValidException}, so the caller's retry path runs, since the leadership may yet be
 * extended and the role go on. A pause after that check is what the store's term check catches.
 */
final class TermWriter {

    private final FencedMapStore store;
    private final String group;
    private final String nodeId;
    private final long term;
    private final Scheduler scheduler;
    private final BooleanSupplier active;
    private final BooleanSupplier valid;
    private final Consumer<String> deposed;

    TermWriter(FencedMapStore store, String group, String nodeId, long term, Scheduler scheduler,
            BooleanSupplier active, BooleanSupplier valid, Consumer<String> deposed) {
        this.store = store;
        this.group = group;
        this.nodeId = nodeId;
        this.term = term;
        this.scheduler = scheduler;
        this.active = active;
        this.valid = valid;
        this.deposed = deposed;
    }

    long term() {
        return term;
    }

    /** Puts {@code key}; {@code accepted} runs once the store applied it, {@code failed} if the call failed. */
    void put(String map, String key, byte[] value, Runnable accepted, Consumer<Throwable> failed) {
        if (!active.getAsBoolean()) {
            return; // deactivated: nothing is written any more, even what the store would still accept
        }
        CompletableFuture<FencedMapWrite> write;
        try {
            write = valid.getAsBoolean() ? store.fencedPut(group, map, key, nodeId, term, value) : notValid();
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        settle(write, map, existed -> accepted.run(), failed);
    }

    /** Removes {@code key}; {@code accepted} gets whether it existed. */
    void remove(String map, String key, Consumer<Boolean> accepted, Consumer<Throwable> failed) {
        if (!active.getAsBoolean()) {
            return;
        }
        CompletableFuture<FencedMapWrite> write;
        try {
            write = valid.getAsBoolean() ? store.fencedRemove(group, map, key, nodeId, term) : notValid();
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        settle(write, map, accepted, failed);
    }

    private CompletableFuture<FencedMapWrite> notValid() {
        return CompletableFuture.failedFuture(new LeadershipNotValidException(term));
    }

    private void settle(CompletableFuture<FencedMapWrite> write, String map, Consumer<Boolean> accepted,
            Consumer<Throwable> failed) {
        write.whenComplete((result, error) -> scheduler.execute(() -> {
            if (!active.getAsBoolean()) {
                return;
            }
            if (error != null) {
                failed.accept(error);
            } else if (!result.accepted()) {
                deposed.accept("the store refused a write to " + map + " under term " + term + ": term "
                        + result.currentTerm() + " is newer");
            } else {
                accepted.accept(result.existed());
            }
        }));
    }
}
