package dev.baton.work.internal.cluster;

import dev.baton.core.time.ExecutorScheduler;
import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a work cluster runs on: the ones the user passed in, or its own (a scheduler thread, a listener
 * thread, four daemon source threads), which {@link #closeOwned()} stops.
 */
public final class ClusterThreads {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Scheduler scheduler;
    private final boolean ownScheduler;
    private final Executor listenerExecutor;
    private final Executor sourceExecutor;
    private final List<Runnable> owned;

    private ClusterThreads(Scheduler scheduler, boolean ownScheduler, Executor listenerExecutor,
                           Executor sourceExecutor, List<Runnable> owned) {
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.listenerExecutor = listenerExecutor;
        this.sourceExecutor = sourceExecutor;
        this.owned = owned;
    }

    /** Uses each of {@code scheduler}, {@code listenerExecutor} and {@code sourceExecutor} given, else its own. */
    public static ClusterThreads of(String group, Scheduler scheduler, Executor listenerExecutor,
                                    Executor sourceExecutor) {
        List<Runnable> owned = new ArrayList<>();
        boolean ownScheduler = scheduler == null;
        if (ownScheduler) {
            ExecutorScheduler own = new ExecutorScheduler("work-" + group);
            scheduler = own;
            owned.add(() -> own.close(Duration.ofSeconds(1)));
        }
        if (listenerExecutor == null) {
            ExecutorScheduler own = new ExecutorScheduler("work-listeners-" + group);
            listenerExecutor = own::execute;
            owned.add(() -> own.execute(() -> own.close(Duration.ZERO)));
        }
        if (sourceExecutor == null) {
            ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
                Thread t = new Thread(r, "baton-work-source-" + group + "-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            sourceExecutor = pool;
            owned.add(pool::shutdownNow);
        }
        return new ClusterThreads(scheduler, ownScheduler, listenerExecutor, sourceExecutor, List.copyOf(owned));
    }

    /** Runs the cluster's state machine, its connections and timers. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Whether the scheduler is the cluster's own: only then may the election's thread wait for work on it to finish
     * (with one passed in, the caller may be running it on that very thread).
     */
    public boolean ownScheduler() {
        return ownScheduler;
    }

    /** Runs detection and event listeners, one at a time. */
    public Executor listenerExecutor() {
        return listenerExecutor;
    }

    /** Runs the user's blocking code: the source, the assignment hook, the session handler. */
    public Executor sourceExecutor() {
        return sourceExecutor;
    }

    /** Stops the threads the cluster made itself; those passed in are the caller's. */
    public void closeOwned() {
        owned.forEach(Runnable::run);
    }
}
