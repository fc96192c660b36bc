package dev.baton.work.cluster;

import dev.baton.core.time.Scheduler;
import dev.baton.testkit.DeterministicScheduler;
import java.time.Duration;

/**
 * One simulated process's view of the shared {@link DeterministicScheduler}: everything the process runs (its election,
 * its work cluster, its worker connections) goes through here, so the test can stop the process dead ({@link #crash()}:
 * nothing of it runs again) or freeze it for a while ({@link #pauseUntil}: a stop-the-world pause; what came due
 * meanwhile runs when it resumes, in due order, late).
 */
final class ProcessScheduler implements Scheduler {

    private final DeterministicScheduler base;
    private boolean crashed;
    private long pausedUntil;
    private boolean paused;

    ProcessScheduler(DeterministicScheduler base) {
        this.base = base;
    }

    /** The process is gone: no task of it runs any more. */
    void crash() {
        crashed = true;
    }

    boolean crashed() {
        return crashed;
    }

    /** Freezes the process until {@code nanoTime} on the shared clock. */
    void pauseUntil(long nanoTime) {
        paused = true;
        pausedUntil = nanoTime;
    }

    /** Whether the process is frozen now. */
    boolean paused() {
        return paused && pausedUntil - base.clock().nanoTime() > 0;
    }

    @Override
    public void execute(Runnable task) {
        Task t = new Task(task);
        base.execute(t);
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        Task t = new Task(task);
        t.handle = base.schedule(delay, t);
        return t::cancel;
    }

    /** A task of this process: dropped once it crashed, put off while it is paused, cancellable across put-offs. */
    private final class Task implements Runnable {
        final Runnable action;
        Cancellable handle = Cancellable.NONE;
        boolean cancelled;

        Task(Runnable action) {
            this.action = action;
        }

        void cancel() {
            cancelled = true;
            handle.cancel();
        }

        @Override
        public void run() {
            if (cancelled || crashed) {
                return;
            }
            long left = pausedUntil - base.clock().nanoTime();
            if (paused && left > 0) {
                handle = base.schedule(Duration.ofNanos(left), this);
                return;
            }
            action.run();
        }
    }
}
