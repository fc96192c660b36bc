package dev.baton.testkit;

import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} on a {@link FakeClock} that runs nothing by itself: the test decides when time passes and
 * tasks run. Tasks run in due order, ties in submission order; time jumps to each task's due time before it runs.
 * So a test of a state machine is a deterministic sequence: arrange, {@link #advance}, assert.
 */
public final class DeterministicScheduler implements Scheduler {

    private final FakeClock clock;
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private long sequence;
    private long executed;
    private volatile Thread running;

    public DeterministicScheduler(FakeClock clock) {
        this.clock = clock;
    }

    public FakeClock clock() {
        return clock;
    }

    private static final class Task implements Comparable<Task> {
        final long due;
        final long seq;
        final Runnable action;
        boolean cancelled;

        Task(long due, long seq, Runnable action) {
            this.due = due;
            this.seq = seq;
            this.action = action;
        }

        @Override
        public int compareTo(Task other) {
            int byDue = Long.compare(due, other.due);
            return byDue != 0 ? byDue : Long.compare(seq, other.seq);
        }
    }

    @Override
    public synchronized void execute(Runnable task) {
        queue.add(new Task(clock.nanoTime(), sequence++, task));
    }

    @Override
    public synchronized Cancellable schedule(Duration delay, Runnable task) {
        Task t = new Task(clock.nanoTime() + Math.max(0, delay.toNanos()), sequence++, task);
        queue.add(t);
        return () -> {
            synchronized (DeterministicScheduler.this) {
                t.cancelled = true;
                queue.remove(t);
            }
        };
    }

    /** Runs every task due now, including tasks they schedule for now. Returns how many ran. */
    public int runUntilIdle() {
        return runUntil(clock.nanoTime());
    }

    /** Advances time by {@code duration}, running each task when its due time is reached. */
    public int advance(Duration duration) {
        return runUntil(clock.nanoTime() + duration.toNanos());
    }

    private int runUntil(long target) {
        int ran = 0;
        while (true) {
            Task next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.due > target) {
                    break;
                }
                queue.poll();
            }
            if (next.cancelled) {
                continue;
            }
            if (next.due > clock.nanoTime()) {
                clock.advanceTo(next.due);
            }
            Thread outer = running;
            running = Thread.currentThread();
            try {
                next.action.run();
            } finally {
                running = outer;
            }
            ran++;
            executed++;
            if (ran > 1_000_000) {
                throw new IllegalStateException("more than a million tasks without time passing: a task loop?");
            }
        }
        clock.advanceTo(Math.max(target, clock.nanoTime()));
        return ran;
    }

    /** True while the calling thread is running one of this scheduler's tasks. */
    @Override
    public boolean runsTaskOnThisThread() {
        return running == Thread.currentThread();
    }

    /** Number of tasks waiting, cancelled ones excluded. */
    public synchronized int pending() {
        return (int) queue.stream().filter(t -> !t.cancelled).count();
    }

    /** Total tasks run so far. */
    public synchronized long executed() {
        return executed;
    }
}
