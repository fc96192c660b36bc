package dev.baton.core.spi;

import dev.baton.core.Leadership;
import dev.baton.core.time.Clock;
import java.util.function.LongSupplier;

/**
 * The engine's side of a {@link Leadership}'s local deadline: the one handle that can move it. An election keeps this
 * and hands its listeners only the read-only {@link Leadership} built from it, so that nothing a listener does can
 * keep a leader valid past what its last successful renewal (or majority acknowledgement) supports.
 */
public final class LeaseDeadline implements LongSupplier {

    private volatile long nanos;

    /** A deadline at {@code nanos} on {@link Clock#nanoTime()}. */
    public LeaseDeadline(long nanos) {
        this.nanos = nanos;
    }

    /** The deadline, on {@link Clock#nanoTime()}. */
    public long nanos() {
        return nanos;
    }

    @Override
    public long getAsLong() {
        return nanos;
    }

    /**
     * Moves the deadline to {@code newNanos} if that is later (only {@link #cutTo} moves it back). Only the thread
     * that drives the election calls this. Returns whether it moved.
     */
    public boolean extendTo(long newNanos) {
        if (newNanos - nanos > 0) {
            nanos = newNanos;
            return true;
        }
        return false;
    }

    /**
     * Moves the deadline back to {@code newNanos} if that is earlier: the engine learned that the lease has ended
     * (its session ended on the store), so no leadership built on it may count as valid past now. Only the thread
     * that drives the election calls this. Returns whether it moved.
     */
    public boolean cutTo(long newNanos) {
        if (newNanos - nanos < 0) {
            nanos = newNanos;
            return true;
        }
        return false;
    }

    /** A read-only leadership whose deadline is this one. */
    public Leadership leadership(String group, String nodeId, long term, Clock clock, Leadership.TermCheck check) {
        return new Leadership(group, nodeId, term, this, clock, check);
    }
}
