package dev.baton.postgres.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names every thread a store starts {@code baton-pg-<store>-<role>-<n>}, as daemons: the statement workers, HikariCP's
 * housekeeping and connection threads, and the LISTEN thread. So a leak check can find them all by name.
 */
public final class PgThreads implements ThreadFactory {

    /** The prefix of every thread name. */
    public static final String PREFIX = "baton-pg-";

    private static final AtomicInteger STORES = new AtomicInteger();

    private final String prefix;
    private final AtomicInteger count = new AtomicInteger();
    private final List<Thread> created = new ArrayList<>();

    private PgThreads(String prefix) {
        this.prefix = prefix;
    }

    /** A fresh store number, so the threads of two stores in one JVM are told apart. */
    public static int nextStoreId() {
        return STORES.incrementAndGet();
    }

    /** Threads named {@code baton-pg-<storeId>-<role>-<n>}. */
    public static PgThreads forRole(int storeId, String role) {
        return new PgThreads(PREFIX + storeId + "-" + role + "-");
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
        thread.setDaemon(true);
        synchronized (created) {
            created.removeIf(t -> t.getState() == Thread.State.TERMINATED);
            created.add(thread);
        }
        return thread;
    }

    /**
     * Waits until every thread made by this factory has ended, at most {@code timeout} in all: for a close that
     * should leave no thread behind once it returns. False if some still run.
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Thread> threads;
        synchronized (created) {
            threads = new ArrayList<>(created);
        }
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }
}
