package dev.baton.peer.quorum;

import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * A {@link DurableState} whose writes a test can hold back, as a slow disk would, and lose, as a crash during the
 * write would. What {@link #load} returns is what is "on disk": only writes that completed.
 */
final class HeldDurableState implements DurableState {

    private AcceptorState disk;
    private boolean holding;
    private boolean crashed;
    private boolean writing;
    private boolean failNext;
    private boolean failing;
    private int writes;

    HeldDurableState(AcceptorState initial) {
        this.disk = initial;
    }

    @Override
    public synchronized Optional<AcceptorState> load() {
        return Optional.ofNullable(disk);
    }

    @Override
    public synchronized void store(AcceptorState state) {
        writing = true;
        try {
            while (holding && !crashed) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            writing = false;
        }
        if (crashed) {
            throw new UncheckedIOException(new java.io.IOException("the process died during the write"));
        }
        if (failNext || failing) {
            failNext = false;
            throw new UncheckedIOException(new java.io.IOException("disk full"));
        }
        disk = state;
        writes++;
    }

    /** Writes from now on wait for {@link #release}. */
    synchronized void hold() {
        holding = true;
    }

    synchronized void release() {
        holding = false;
        notifyAll();
    }

    /** The process dies: a write under way never reaches the disk. */
    synchronized void crash() {
        crashed = true;
        notifyAll();
    }

    /** The next write fails (and stores nothing), as on a full disk. */
    synchronized void failNextWrite() {
        failNext = true;
    }

    /** Every write fails from now on (and stores nothing) until {@code failing(false)}, as on a broken disk. */
    synchronized void failing(boolean value) {
        failing = value;
    }

    /** A write is waiting to be released. */
    synchronized boolean writing() {
        return writing;
    }

    /** Writes that completed. */
    synchronized int writes() {
        return writes;
    }
}
