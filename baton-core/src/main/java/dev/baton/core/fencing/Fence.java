package dev.baton.core.fencing;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The resource side of fencing, for a resource that lives in one process: it remembers the highest term it has
 * admitted and refuses anything older.
 *
 * <pre>{@code
 * Fence fence = new Fence();
 * // in the resource, for every request that carries the caller's term:
 * fence.run(request.term(), () -> apply(request));   // throws StaleTermException for an old leader
 * }</pre>
 *
 * <p>Admission and the action are not atomic together unless the caller serialises them ({@link #run} does, by
 * holding the fence's lock while the action runs).
 */
public final class Fence {

    private final AtomicLong highest;

    public Fence() {
        this(Long.MIN_VALUE);
    }

    /** A fence that already refuses every term below {@code highestSeen}. */
    public Fence(long highestSeen) {
        this.highest = new AtomicLong(highestSeen);
    }

    /** Admits {@code term} if it is not older than any admitted before, and remembers it. */
    public boolean admit(long term) {
        long seen = highest.get();
        while (term >= seen) {
            if (highest.compareAndSet(seen, term)) {
                return true;
            }
            seen = highest.get();
        }
        return false;
    }

    /** The highest term admitted so far. */
    public long highestTerm() {
        return highest.get();
    }

    /**
     * Runs {@code action} if {@code term} is admitted, with no other fenced action running at the same time.
     *
     * @throws StaleTermException if a newer term was admitted before
     */
    public synchronized <T> T run(long term, Supplier<T> action) {
        if (!admit(term)) {
            throw new StaleTermException(term, highest.get());
        }
        return action.get();
    }
}
