package dev.baton.bench.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** N leader groups contended for by one process, all through the same client (store or Redisson client). */
interface GroupSet {

    /**
     * Creates and starts every group the way a user would; returns at once. The i-th future completes with
     * {@link System#nanoTime()} when this process leads group i.
     */
    List<CompletableFuture<Long>> start();

    /** Completes once every group has made its first attempt and, where another process leads, waits its turn. */
    CompletableFuture<Void> contending();

    /** Calls {@code begin} on group {@code prefix + i} for every i below {@code n}; its futures, in order. */
    static List<CompletableFuture<Long>> startEach(String prefix, int n,
            Function<String, CompletableFuture<Long>> begin) {
        List<CompletableFuture<Long>> led = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            led.add(begin.apply(prefix + i));
        }
        return led;
    }

    /** Gives up every group (a leader releases its lease or lock); completes when all are done. */
    CompletableFuture<Void> closeAll();

    /**
     * How many groups still have a lease or lock on the store, asked one at a time (after {@link #closeAll()}: a
     * release that failed leaves it to expire).
     */
    int stillHeld() throws Exception;
}
