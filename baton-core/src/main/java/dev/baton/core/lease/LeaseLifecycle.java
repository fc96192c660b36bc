package dev.baton.core.lease;

import dev.baton.core.ElectionConfig;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.spi.ShutdownRelease;
import dev.baton.core.time.Scheduler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life cycle of a lease election: created, started once, closed once. It hands start and close to the
 * {@link LeaseMachine} through its driver, and owns the one subtle rule of closing: a close asked for from a listener,
 * or from the election's own thread, must not wait for itself (see {@link dev.baton.core.Election#close()}).
 */
final class LeaseLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final String group;
    private final ElectionConfig config;
    private final Scheduler scheduler;
    private final EventDispatcher events;
    private final LeaseDriver driver;
    private final Runnable afterClose;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile ShutdownRelease shutdownRelease;

    /** @param afterClose run once the election has closed (the driver releases its threads there); may be null */
    LeaseLifecycle(String group, ElectionConfig config, Scheduler scheduler, EventDispatcher events,
            LeaseDriver driver, Runnable afterClose) {
        this.group = group;
        this.config = config;
        this.scheduler = scheduler;
        this.events = events;
        this.driver = driver;
        this.afterClose = afterClose;
    }

    /** Closes the election from a JVM shutdown hook while it runs: registered by start, removed once closed. */
    void releaseOnShutdown(ShutdownRelease hook) {
        shutdownRelease = hook;
    }

    /** Starts the machine the first time; later calls do nothing. */
    void start() {
        if (started.compareAndSet(false, true)) {
            ShutdownRelease hook = shutdownRelease;
            if (hook != null && !closeRequested.get()) {
                hook.register();
            }
            driver.submit(new LeaseInput.Start());
        }
    }

    /** Asks for the close once; the future completes when the release went out and the registry entry is gone. */
    CompletableFuture<Void> closeAsync() {
        if (closeRequested.compareAndSet(false, true)) {
            boolean fromListener = events.deliveringOnThisThread();
            driver.submit(new LeaseInput.Close(fromListener, this::finish));
        }
        return closed;
    }

    /** {@link #closeAsync()}, then waits for it, at most about the lease TTL, unless that would wait for itself. */
    void close() {
        CompletableFuture<Void> done = closeAsync();
        if (events.deliveringOnThisThread() || scheduler.runsTaskOnThisThread()) {
            // The close needs this thread (a listener on a direct executor runs on the scheduler's thread) or waits
            // for this listener to return: waiting here would wait for ourselves until the timeout, with the lease
            // held all along. The release goes out as soon as this call returns.
            return;
        }
        try {
            done.get(config.leaseTtl().toNanos() + config.storeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Closing the election of group {} did not finish cleanly: {}", group, e.toString());
        }
    }

    private void finish() {
        ShutdownRelease hook = shutdownRelease;
        if (hook != null) {
            hook.unregister();
        }
        closed.complete(null);
        if (afterClose != null) {
            afterClose.run();
        }
    }
}
