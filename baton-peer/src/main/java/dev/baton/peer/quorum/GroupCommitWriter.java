package dev.baton.peer.quorum;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that makes a node's votes durable, so that the protocol's thread never waits for a disk. Saves asked for
 * while a write is under way are folded into the next one: each {@link AcceptorState} is the whole state, so only the
 * newest needs writing, and several pending saves cost one write and one fsync (group commit). The thread starts with
 * the first save and ends on {@link #close()} once the last save asked for has been written.
 *
 * <p>Driver side, like {@link FileDurableState}: the only class of the protocol that starts a thread.
 */
final class GroupCommitWriter {

    /** Told on the writer's thread when the saves up to a sequence number are durable, or could not be made so. */
    interface Listener {

        void written(long upTo);

        void failed(long upTo, RuntimeException cause);
    }

    private static final Logger log = LoggerFactory.getLogger(GroupCommitWriter.class);

    private final DurableState durable;
    private final String name;
    private final Object lock = new Object();
    private Listener listener;
    private AcceptorState pending;
    private long pendingUpTo;
    private boolean closing;
    private Thread thread;
    private long writes;

    GroupCommitWriter(DurableState durable, String name) {
        this.durable = Objects.requireNonNull(durable, "durable");
        this.name = name;
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
            if (thread == null) {
                thread = new Thread(this::run, "baton-quorum-writer-" + name);
                thread.setDaemon(true);
                thread.start();
            }
            lock.notifyAll();
        }
    }

    /** Ends the thread once every submitted save has been written, closing the state (see DurableState#close). */
    void close() {
        synchronized (lock) {
            closing = true;
            lock.notifyAll();
        }
    }

    /** How many writes (each one store, so one fsync for a file) were done: at most one per submitted save. */
    long writes() {
        synchronized (lock) {
            return writes;
        }
    }

    private void closeDurable() {
        try {
            durable.close();
        } catch (RuntimeException e) {
            log.debug("vote writer of {}: closing {} failed", name, durable, e);
        }
    }

    private void run() {
        while (true) {
            AcceptorState state;
            long upTo;
            synchronized (lock) {
                while (pending == null && !closing) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        // Nobody but the JVM's shutdown interrupts this thread; nothing unwritten was sent.
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (pending == null) {
                    closeDurable();
                    return;
                }
                state = pending;
                upTo = pendingUpTo;
                pending = null;
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
        }
    }
}
