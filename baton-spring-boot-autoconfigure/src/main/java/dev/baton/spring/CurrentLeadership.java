package dev.baton.spring;

import dev.baton.core.Leadership;
import java.util.Optional;

/**
 * The leadership a {@link LeaderOnly} method is running under, on the thread that runs it: the term to fence its
 * writes with.
 */
public final class CurrentLeadership {

    private static final ThreadLocal<Leadership> CURRENT = new ThreadLocal<>();

    private CurrentLeadership() {
    }

    /** The leadership of the {@code @LeaderOnly} call running on this thread, if any. */
    public static Optional<Leadership> get() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * The leadership of the {@code @LeaderOnly} call running on this thread.
     *
     * @throws IllegalStateException outside a {@code @LeaderOnly} method
     */
    public static Leadership require() {
        Leadership leadership = CURRENT.get();
        if (leadership == null) {
            throw new IllegalStateException("no leadership on this thread: call CurrentLeadership.require() from a "
                    + "@LeaderOnly method");
        }
        return leadership;
    }

    /** Runs {@code call} with {@code leadership} current, restoring the previous one afterwards (nested calls). */
    static Object runUnder(Leadership leadership, ThrowingCall call) throws Throwable {
        Leadership previous = CURRENT.get();
        CURRENT.set(leadership);
        try {
            return call.run();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }

    /** A call that may throw anything, as a method invocation may. */
    @FunctionalInterface
    interface ThrowingCall {
        Object run() throws Throwable;
    }
}
