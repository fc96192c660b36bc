package dev.baton.peer.quorum;

import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The asynchronous driver: saves go to a {@link GroupCommitWriter} thread, and every send or notice asked for after a
 * save waits, in order, until that save is durable. Nothing waits when no save is outstanding, so keep-alives and
 * acknowledgements of a node that is not voting go out at once. The protocol's thread therefore never blocks on the
 * disk, and a reply that carries a promise or an acceptance still never leaves before the promise or acceptance is on
 * disk: a crash before the write completes leaves the reply unsent.
 *
 * <p>When a write completes, the writer thread sends the messages at the head of the queue itself (the transport is
 * safe to call from any thread, and a vote then costs no hop back to the node's scheduler); it stops at the first
 * notice, and the node's scheduler runs the rest in order, so that notices reach the application on the scheduler
 * and never overtake each other or an earlier message.
 *
 * <p>A save that fails drops the sends that waited for it (they would claim a vote the disk does not hold), and the
 * steps that would count this node's own vote or tell it leads ({@link #afterDurable}), and reports the failure, on
 * which the node stops taking part (see {@code QuorumNode}); notices still run, in order, so that the application's
 * view never skips a loss. Saves asked for before the failure was reported are still written, and what waited for
 * them goes out: each holds the whole state. The queue is guarded by this object's monitor.
 */
final class DurableFirstEffects implements Effects, GroupCommitWriter.Listener {

    private static final class Held {
        final long after;
        final Runnable action;
        final boolean send;
        final boolean dropOnFailure;
        boolean dropped;

        Held(long after, Runnable action, boolean send, boolean dropOnFailure) {
            this.after = after;
            this.action = action;
            this.send = send;
            this.dropOnFailure = dropOnFailure;
        }
    }

    private final GroupCommitWriter writer;
    private final Transport<QuorumMessage> transport;
    private final Scheduler scheduler;
    private final Consumer<RuntimeException> onWriteFailure;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    // Saves asked for, and saves known durable (or failed); both numbered from 1.
    private long requested;
    private long resolved;
    private Runnable whenDrained;

    DurableFirstEffects(GroupCommitWriter writer, Transport<QuorumMessage> transport, Scheduler scheduler,
            Consumer<RuntimeException> onWriteFailure) {
        this.writer = writer;
        this.transport = transport;
        this.scheduler = scheduler;
        this.onWriteFailure = onWriteFailure;
        writer.listener(this);
    }

    @Override
    public synchronized void persist(AcceptorState state) {
        requested++;
        writer.submit(requested, state);
    }

    @Override
    public void send(PeerAddress to, QuorumMessage message) {
        hold(() -> transport.send(to, message), true, true);
    }

    @Override
    public void tell(Runnable notice) {
        hold(notice, false, false);
    }

    @Override
    public void afterDurable(Runnable step) {
        hold(step, false, true);
    }

    private synchronized void hold(Runnable action, boolean send, boolean dropOnFailure) {
        if (held.isEmpty() && resolved >= requested) {
            action.run();
        } else {
            held.add(new Held(requested, action, send, dropOnFailure));
        }
    }

    @Override
    public void close(Runnable drained) {
        scheduler.execute(() -> {
            synchronized (this) {
                whenDrained = drained;
            }
            finishIfDrained();
        });
    }

    @Override
    public void written(long upTo) {
        release(upTo, null);
    }

    @Override
    public void failed(long upTo, RuntimeException cause) {
        release(upTo, cause);
    }

    /** On the writer's thread: the saves up to {@code upTo} are durable (or failed). */
    private void release(long upTo, RuntimeException failure) {
        boolean scheduled;
        synchronized (this) {
            if (failure != null) {
                for (Held next : held) {
                    if (next.dropOnFailure && next.after > resolved && next.after <= upTo) {
                        next.dropped = true;
                    }
                }
            }
            resolved = Math.max(resolved, upTo);
            while (!held.isEmpty() && held.peek().send && held.peek().after <= resolved) {
                Held next = held.poll();
                if (!next.dropped) {
                    next.action.run();
                }
            }
            scheduled = failure != null || whenDrained != null
                    || (!held.isEmpty() && held.peek().after <= resolved);
        }
        if (scheduled) {
            scheduler.execute(() -> onScheduler(failure));
        }
    }

    private void onScheduler(RuntimeException failure) {
        if (failure != null) {
            onWriteFailure.accept(failure);
        }
        synchronized (this) {
            while (!held.isEmpty() && held.peek().after <= resolved) {
                Held next = held.poll();
                if (!next.dropped) {
                    next.action.run();
                }
            }
        }
        finishIfDrained();
    }

    private void finishIfDrained() {
        Runnable drained;
        synchronized (this) {
            if (whenDrained == null || !held.isEmpty() || resolved < requested) {
                return;
            }
            drained = whenDrained;
            whenDrained = null;
        }
        writer.close();
        drained.run();
    }

    /** How many writes the writer thread did (for tests: fewer than the saves when saves were folded together). */
    long writes() {
        return writer.writes();
    }
}
