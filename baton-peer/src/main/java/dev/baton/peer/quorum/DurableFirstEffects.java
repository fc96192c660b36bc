package dev.baton.peer.quorum;

import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The asynchronous driver: saves go to a {@link GroupCommitWriter} thread, and every send or notice asked for after a
 * save waits, in order, until that save is durable; the writer's completion is handed back to the node's scheduler,
 * which releases what waited. Nothing waits when no save is outstanding, so keep-alives and acknowledgements of a
 * node that is not voting go out at once. The protocol's thread therefore never blocks on the disk, and a reply that
 * carries a promise or an acceptance still never leaves before the promise or acceptance is on disk: a crash before
 * the write completes leaves the reply unsent.
 *
 * <p>A save that fails drops the sends that waited for it (they would claim a vote the disk does not hold) and reports
 * the failure; notices still run, in order, so that the application's view never skips a loss. The state the failed
 * save held stays in memory and goes to disk with the next save. Confined to the node's scheduler.
 */
final class DurableFirstEffects implements Effects, GroupCommitWriter.Listener {

    private record Held(long after, Runnable action, boolean send) {
    }

    private final GroupCommitWriter writer;
    private final Transport<QuorumMessage> transport;
    private final Scheduler scheduler;
    private final Consumer<RuntimeException> onWriteFailure;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    // Saves asked for, and saves known durable (or failed); both numbered from 1 on this scheduler.
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
    public void persist(AcceptorState state) {
        requested++;
        writer.submit(requested, state);
    }

    @Override
    public void send(PeerAddress to, QuorumMessage message) {
        hold(() -> transport.send(to, message), true);
    }

    @Override
    public void tell(Runnable notice) {
        hold(notice, false);
    }

    private void hold(Runnable action, boolean send) {
        if (held.isEmpty() && resolved >= requested) {
            action.run();
        } else {
            held.add(new Held(requested, action, send));
        }
    }

    /** May be called from any thread (a hand-over completes on the listener's); the drain runs on the scheduler. */
    @Override
    public void close(Runnable drained) {
        scheduler.execute(() -> {
            whenDrained = drained;
            finishIfDrained();
        });
    }

    @Override
    public void written(long upTo) {
        scheduler.execute(() -> resolve(upTo, null));
    }

    @Override
    public void failed(long upTo, RuntimeException cause) {
        scheduler.execute(() -> resolve(upTo, cause));
    }

    private void resolve(long upTo, RuntimeException failure) {
        resolved = Math.max(resolved, upTo);
        if (failure != null) {
            onWriteFailure.accept(failure);
        }
        while (!held.isEmpty() && held.peek().after() <= resolved) {
            Held next = held.poll();
            if (failure == null || !next.send()) {
                next.action().run();
            }
        }
        finishIfDrained();
    }

    private void finishIfDrained() {
        if (whenDrained != null && held.isEmpty() && resolved >= requested) {
            Runnable drained = whenDrained;
            whenDrained = null;
            writer.close();
            drained.run();
        }
    }

    /** How many writes the writer thread did (for tests: fewer than the saves when saves were folded together). */
    long writes() {
        return writer.writes();
    }
}
