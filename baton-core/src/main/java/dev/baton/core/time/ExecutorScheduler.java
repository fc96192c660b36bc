package dev.baton.core.time;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Scheduler}: one daemon thread that runs every task in order.
 *
 * <p>A task that throws is logged and does not stop the thread. {@link #close()} stops the thread; tasks still
 * pending are dropped.
 */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ExecutorScheduler.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final ScheduledThreadPoolExecutor executor;
    private volatile Thread thread;

    /** Creates a scheduler whose thread is named {@code baton-<name>-<n>}. */
    public ExecutorScheduler(String name) {
        String threadName = "baton-" + name + "-" + SEQUENCE.incrementAndGet();
        this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread created = new Thread(runnable, threadName);
            created.setDaemon(true);
            thread = created;
            return created;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        // Start the thread now, not on the first task: the first election should not pay for a thread start.
        executor.prestartCoreThread();
    }

    @Override
    public void execute(Runnable task) {
        if (executor.isShutdown()) {
            return;
        }
        executor.execute(() -> runLogged(task));
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        if (executor.isShutdown()) {
            return Cancellable.NONE;
        }
        long nanos = Math.max(0, delay.toNanos());
        ScheduledFuture<?> future = executor.schedule(() -> runLogged(task), nanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    @Override
    public boolean runsTaskOnThisThread() {
        return Thread.currentThread() == thread;
    }

    private void runLogged(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            log.error("Scheduled task failed", e);
        }
    }

    /** Stops the thread, waiting up to {@code timeout} for a running task to finish. */
    public void close(Duration timeout) {
        executor.shutdownNow();
        try {
            executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
