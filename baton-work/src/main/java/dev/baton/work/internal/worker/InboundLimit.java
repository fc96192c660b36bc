package dev.baton.work.internal.worker;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A bound on the worker messages one backend holds in total: read from any worker's socket and not yet handled,
 * plus whatever its consumers {@linkplain #hold() hold} downstream (results being published or delivered). Each
 * {@link WorkerConnection} sharing it asks for a message only when it can {@linkplain #tryAcquire take} a unit here
 * (and within its own {@code maxQueuedMessages}); when none is free it waits and is woken, in the order it started
 * waiting, as units come back. So several fast workers cannot together grow the heap past the bound: they are held
 * back by their own TCP buffers instead.
 *
 * <p>Thread-safe. Wake-ups run outside the lock.
 */
public final class InboundLimit {

    private final int max;
    private final Set<Runnable> waiting = new LinkedHashSet<>();
    private int used;
    private int peak;

    /** A limit of {@code max} units in total. */
    public InboundLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        this.max = max;
    }

    /** A limit no one reaches: each connection is bound by its own window only. */
    public static InboundLimit unbounded() {
        return new InboundLimit(Integer.MAX_VALUE);
    }

    /** The bound. */
    public int max() {
        return max;
    }

    /** Units in use now: messages asked for and not yet handled, and holds. */
    public synchronized int used() {
        return used;
    }

    /** The most units ever in use at once. */
    public synchronized int peak() {
        return peak;
    }

    /**
     * Takes up to {@code wanted} units; returns how many were taken. If fewer than wanted, {@code wakeUp} is run
     * (once) when units come back, to try again.
     */
    public int tryAcquire(int wanted, Runnable wakeUp) {
        synchronized (this) {
            int granted = (int) Math.max(0, Math.min(wanted, (long) max - used));
            used += granted;
            peak = Math.max(peak, used);
            if (granted < wanted) {
                waiting.add(wakeUp);
            }
            return granted;
        }
    }

    /**
     * Takes one unit whatever the bound, for work that cannot wait (a result already read must be routed); while the
     * bound is reached no connection reads more.
     */
    public synchronized void hold() {
        hold(1);
    }

    /** Takes {@code n} units whatever the bound, as {@link #hold()} does one (a batch of results being published). */
    public synchronized void hold(int n) {
        used += n;
        peak = Math.max(peak, used);
    }

    /** Gives back {@code n} units (messages handled, holds done) and wakes the waiting connections if any are free. */
    public void release(int n) {
        if (n <= 0) {
            return;
        }
        List<Runnable> wake;
        synchronized (this) {
            used = Math.max(0, used - n);
            if (used >= max || waiting.isEmpty()) {
                return;
            }
            wake = new ArrayList<>(waiting);
            waiting.clear();
        }
        for (Runnable r : wake) {
            r.run();
        }
    }
}
