package dev.baton.peer.quorum;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a node's votes durable off the protocol's thread, so that the protocol never waits for a disk. Saves asked for
 * while a write is under way are folded into the next one: each {@link AcceptorState} is the whole state, so only the
 * newest needs writing, and several pending saves cost one write and one fsync (group commit).
 *
 * <p>Writes run one at a time on the writer's executor, each as one task that writes the newest pending state and
 * reports it; a task that finds more pending hands the next write to the executor again. A real node's executor is a
 * thread of its own ({@link #onOwnThread}), started with the first save and ended on {@link #close()} once the last
 * save asked for has been written; the simulation's runs the writes as timed tasks of the simulated process, so that
 * a schedule with writes in flight still replays from its seed.
 *
 * <p>Driver side, like {@link FileDurableState}: the only class of the protocol that starts a thread.
 */
final class GroupCommitWriter {

    /** Told on the writer's executor when the saves up to a sequence number are durable, or could not be made so. */
    interface Listener {

        void written(long upTo);

        void failed(long upTo, RuntimeException cause);
    }

    private static final Logger log = LoggerFactory.getLogger(GroupCommitWriter.class);

    private final DurableState durable;
    private final String name;
    private final Executor executor;
    private final Runnable stopExecutor;
    private final Object lock = new Object();
    private Listener listener;
    // Guarded by lock: the newest save not yet started, whether a write task is queued or running, and the end.
    private AcceptorState pending;
    private long pendingUpTo;
    private boolean running;
    private boolean closing;
    private boolean closed;
    private long writes;

    /**
     * A writer whose writes run on {@code executor}, one task at a time; {@code stopExecutor} is run once, after the
     * state is closed, when nothing is left to write.
     */
    GroupCommitWriter(DurableState durable, String name, Executor executor, Runnable stopExecutor) {
        this.durable = Objects.requireNonNull(durable, "durable");
        this.name = name;
        this.executor = Objects.requireNonNull(executor, "executor");
        this.stopExecutor = Objects.requireNonNull(stopExecutor, "stopExecutor");
    }

    /** A writer on a daemon thread of its own, {@code baton-quorum-writer-<name>}, started with the first save. */
    static GroupCommitWriter onOwnThread(DurableState durable, String name) {
        ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "baton-quorum-writer-" + name);
            t.setDaemon(true);
            return t;
        });
        return new GroupCommitWriter(durable, name, thread, thread::shutdown);
    }

    /** Who is told about completed writes; set once, before the first {@link #submit}. */
    void listener(Listener value) {
        this.listener = value;
    }

    /** Asks for {@code state}, the save numbered {@code seq}, to be written; replaces any save not yet started. */
    void submit(long seq, AcceptorState state) {
        synchronized (lock) {
            if (closing) {
                throw new IllegalStateException("the vote writer of " + name + " is closed");
            }
            pending = state;
            pendingUpTo = seq;
            wake();
        }
    }

    /** Ends the writer once every submitted save has been written, closing the state (see DurableState#close). */
    void close() {
        synchronized (lock) {
            closing = true;
            wake();
        }
    }

    /** How many writes (each one store, so one fsync for a file) were done: at most one per submitted save. */
    long writes() {
        synchronized (lock) {
            return writes;
        }
    }

    /** Queues a write task unless one is queued or running (which picks up what is pending when it ends). */
    private void wake() {
        if (!running && !closed) {
            running = true;
            executor.execute(this::writeNext);
        }
    }

    /** One write task: writes the newest pending state, reports it, and queues the next task if more is pending. */
    private void writeNext() {
        AcceptorState state;
        long upTo;
        synchronized (lock) {
            if (pending == null) {
                running = false;
                if (!closing || closed) {
                    return;
                }
                closed = true;
            }
            state = pending;
            upTo = pendingUpTo;
            pending = null;
        }
        if (state == null) {
            closeDurable();
            stopExecutor.run();
            return;
        }
        RuntimeException failure = null;
        try {
            durable.store(state);
        } catch (RuntimeException e) {
            failure = e;
        }
        synchronized (lock) {
            writes++;
        }
        try {
            if (failure == null) {
                listener.written(upTo);
            } else {
                listener.failed(upTo, failure);
            }
        } catch (RuntimeException e) {
            // The node's scheduler is gone (the election closed without waiting): nothing is left to release.
            log.debug("vote writer of {}: completion of save {} not delivered", name, upTo, e);
        }
        synchronized (lock) {
            running = false;
            if (pending != null || closing) {
                wake();
            }
        }
    }

    private void closeDurable() {
        try {
            durable.close();
        } catch (RuntimeException e) {
            log.debug("vote writer of {}: closing {} failed", name, durable, e);
        }
    }
}
