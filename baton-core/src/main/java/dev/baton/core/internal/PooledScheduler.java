package dev.baton.core.internal;

import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
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
 * <p>There are two shared pools. The elections' own queues ({@link #PooledScheduler()}) run on a bounded pool
 * ({@link #SHARED_THREADS}, from the number of processors): their tasks never block, so a process that starts ten
 * thousand elections at once queues their work instead of starting a thread per busy queue, and a queue runs at most
 * {@value #TASKS_PER_TURN} tasks in a row before it lets the other queues waiting for a thread go first. Listeners
 * ({@link #forListeners()}) are the application's code and may block (a job that finishes its run before the
 * leadership is given up): they run on a pool that starts a thread whenever all of its threads are busy, so a
 * listener that blocks holds up only its own election's events, and never another election's renewals.
 *
 * <p>Each instance is its own serial queue, so an election's state machine (or its listeners) never runs two tasks
 * at once. A task that throws is logged and does not stop the queue. After {@link #close()} new tasks are dropped, as
 * are pending ones.
 */
public final class PooledScheduler implements Scheduler, Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PooledScheduler.class);
    private static final Duration IDLE_THREAD_KEEP_ALIVE = Duration.ofSeconds(60);
    /** How many threads the shared pool runs at most, whatever the number of elections. */
    static final int SHARED_THREADS = Math.max(8, 2 * Runtime.getRuntime().availableProcessors());
    /** How many tasks a queue runs in a row before it gives its thread to the next queue waiting for one. */
    static final int TASKS_PER_TURN = 64;
    private static final ThreadPoolExecutor WORKERS = workers();
    private static final ThreadPoolExecutor LISTENERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            IDLE_THREAD_KEEP_ALIVE.toSeconds(), TimeUnit.SECONDS, new SynchronousQueue<>(), daemon("baton-listener"));
    private static final ScheduledThreadPoolExecutor TIMERS = timers();
    private static final ThreadLocal<PooledScheduler> RUNNING = new ThreadLocal<>();

    private final Executor workers;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean draining;
    private volatile boolean closed;

    /** A serial queue for an election's own tasks, on the JVM's shared, bounded pool. Its tasks must not block. */
    public PooledScheduler() {
        this(WORKERS);
    }

    /** A serial queue for an election's listeners, on the JVM's shared pool that grows while its threads are busy. */
    public static PooledScheduler forListeners() {
        return new PooledScheduler(LISTENERS);
    }

    /** A serial queue on {@code workers} (tests hand in a small pool). */
    PooledScheduler(Executor workers) {
        this.workers = workers;
    }

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
        workers.execute(this::drain);
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
            for (int ran = 0; ran < TASKS_PER_TURN; ran++) {
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
        // Still draining: the rest waits behind the queues that were waiting for a thread.
        workers.execute(this::drain);
    }

    private static ThreadPoolExecutor workers() {
        ThreadPoolExecutor workers = new ThreadPoolExecutor(SHARED_THREADS, SHARED_THREADS,
                IDLE_THREAD_KEEP_ALIVE.toSeconds(), TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemon("baton-election"));
        workers.allowCoreThreadTimeOut(true);
        return workers;
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
