package dev.baton.core.internal;

import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} (and {@link Executor}) whose tasks run one at a time, in order, on daemon threads shared by
 * every election of the JVM: what {@code Baton.election(store)} gives an election that was not handed its own
 * threads. An election built and started no longer pays for starting two threads of its own, which dominated its
 * first election. Threads start on demand and stop after a minute without work, so a JVM whose elections have all
 * closed is soon left with none. Timers fire on one shared timer thread, which only queues the task here.
 *
 * <p>Each instance is its own serial queue, so an election's state machine (or its listeners) never runs two tasks
 * at once, and a task that blocks holds up only its own queue (and one shared thread). A task that throws is logged
 * and does not stop the queue. After {@link #close()} new tasks are dropped, as are pending ones.
 */
public final class PooledScheduler implements Scheduler, Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PooledScheduler.class);
    private static final Duration IDLE_THREAD_KEEP_ALIVE = Duration.ofSeconds(60);
    private static final ThreadPoolExecutor WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            IDLE_THREAD_KEEP_ALIVE.toSeconds(), TimeUnit.SECONDS, new SynchronousQueue<>(), daemon("baton-election"));
    private static final ScheduledThreadPoolExecutor TIMERS = timers();
    private static final ThreadLocal<PooledScheduler> RUNNING = new ThreadLocal<>();

    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean draining;
    private volatile boolean closed;

    @Override
    public void execute(Runnable task) {
        if (closed) {
            return;
        }
        synchronized (tasks) {
            tasks.add(task);
            if (draining) {
                return;
            }
            draining = true;
        }
        WORKERS.execute(this::drain);
    }

    /** The timer only queues the task here; a task cancelled before it ran never runs. */
    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        if (closed) {
            return Cancellable.NONE;
        }
        AtomicBoolean cancelled = new AtomicBoolean();
        Runnable unlessCancelled = () -> {
            if (!cancelled.get()) {
                task.run();
            }
        };
        ScheduledFuture<?> timer = TIMERS.schedule(() -> execute(unlessCancelled), Math.max(0, delay.toNanos()),
                TimeUnit.NANOSECONDS);
        return () -> {
            cancelled.set(true);
            timer.cancel(false);
        };
    }

    @Override
    public boolean runsTaskOnThisThread() {
        return RUNNING.get() == this;
    }

    /** Drops pending tasks and refuses new ones; a task already running finishes. */
    @Override
    public void close() {
        closed = true;
        synchronized (tasks) {
            tasks.clear();
        }
    }

    private void drain() {
        RUNNING.set(this);
        try {
            while (true) {
                Runnable next;
                synchronized (tasks) {
                    next = closed ? null : tasks.poll();
                    if (next == null) {
                        draining = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException | Error e) {
                    log.error("Scheduled task failed", e);
                }
            }
        } finally {
            RUNNING.remove();
        }
    }

    private static ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, daemon("baton-election-timer"));
        timers.setRemoveOnCancelPolicy(true);
        // Like the workers, the timer thread stops once no timer has been pending for a while.
        timers.setKeepAliveTime(IDLE_THREAD_KEEP_ALIVE.toSeconds(), TimeUnit.SECONDS);
        timers.allowCoreThreadTimeOut(true);
        return timers;
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger sequence = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + sequence.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
