package dev.baton.core.time;

import java.time.Duration;

/**
 * Runs tasks one at a time, now or after a delay.
 *
 * <p>A Baton state machine is driven entirely through its scheduler: every input (a store reply, a timer, a push
 * notice, a user command) is posted here, so the machine's state is touched by one task at a time and needs no
 * locks. Implementations must run tasks sequentially and in submission order for equal due times. Production code
 * uses {@link ExecutorScheduler}; tests use the testkit's deterministic scheduler on a fake clock.
 */
public interface Scheduler {

    /** Runs {@code task} as soon as possible, after the tasks already due. */
    void execute(Runnable task);

    /** Runs {@code task} once {@code delay} has passed on the scheduler's clock. */
    Cancellable schedule(Duration delay, Runnable task);

    /**
     * True when the calling thread is running one of this scheduler's tasks. A machine uses it to avoid waiting for
     * its own tasks from inside one (which would wait for itself). Default: false, for schedulers that cannot tell.
     */
    default boolean runsTaskOnThisThread() {
        return false;
    }

    /** A scheduled task that may still be cancelled. Cancelling a task that already ran does nothing. */
    @FunctionalInterface
    interface Cancellable {
        /** A handle that refers to nothing; cancelling it does nothing. */
        Cancellable NONE = () -> { };

        void cancel();
    }
}
