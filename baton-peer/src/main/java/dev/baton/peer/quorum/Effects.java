package dev.baton.peer.quorum;

import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import java.util.function.Consumer;

/**
 * What a protocol step asks the world to do, handed to a driver instead of done inline: save the acceptor's state,
 * send a message, tell the application something. The driver decides when each happens, under one rule that makes a
 * vote safe: <em>a message or a notice never goes out before every state saved ahead of it is durable</em> (a promise
 * or an acceptance is on disk before the reply that carries it leaves the node; a term is recorded as led before the
 * application hears it leads). Timers are not effects: they are scheduled at once, as they change nothing outside.
 *
 * <p>Two drivers, in the spirit of etcd raft's {@code RawNode} (synchronous) and {@code node.go} (threaded):
 * {@link InlineEffects} does each effect the moment it is asked, in order (the simulation and {@link
 * InMemoryDurableState}, where a save costs nothing and every schedule must replay identically), and {@link
 * DurableFirstEffects} hands saves to a {@link GroupCommitWriter} thread and holds back what depends on them until the
 * write completes (a file on disk, so that a slow fsync no longer stalls the protocol's thread). Confined to the node's
 * scheduler, except where a method says otherwise.
 */
interface Effects {

    /**
     * Saves {@code state}; later sends and notices wait until it is durable.
     *
     * @throws java.io.UncheckedIOException (inline only) if it could not be saved: the step stops there, and nothing
     *     that depended on the state goes out
     */
    void persist(AcceptorState state);

    /** Sends {@code message} once every state persisted before it is durable. */
    void send(PeerAddress to, QuorumMessage message);

    /** Runs {@code notice} (an event or a snapshot for the application) once every state saved before it is durable. */
    void tell(Runnable notice);

    /**
     * Runs {@code step} on the node's scheduler once every state saved before it is durable, and never if one of those
     * saves failed. For the steps that count this node's own vote (a vote counts toward a majority only once the disk
     * holds it, like a vote from another node, which arrives only after its write completed) and the notice that it
     * leads (a term is recorded as led before the application hears of it).
     */
    void afterDurable(Runnable step);

    /**
     * Runs {@code whenDrained} once every effect asked for so far has been done (or dropped), then stops any thread.
     * May be called from any thread.
     */
    void close(Runnable whenDrained);

    /**
     * The driver for {@code durable}: inline for the in-memory state (nothing to wait for, and the simulation stays
     * deterministic), off the protocol's thread with group commit, on a writer thread of the node's own, for anything
     * else.
     *
     * @param onWriteFailure told, on the scheduler, when a save failed: the sends that depended on it were dropped
     */
    static Effects forState(DurableState durable, Transport<QuorumMessage> transport, Scheduler scheduler,
            String name, Consumer<RuntimeException> onWriteFailure) {
        if (durable instanceof InMemoryDurableState) {
            return new InlineEffects(durable, transport);
        }
        return new DurableFirstEffects(GroupCommitWriter.onOwnThread(durable, name), transport, scheduler,
                onWriteFailure);
    }

    /**
     * How a node gets its driver. A real node's is {@link #forState}; the simulation's gives nodes on a simulated disk
     * the group-commit driver with its writes run as timed tasks of the simulated process.
     */
    @FunctionalInterface
    interface Factory {

        /** The driver of a node named {@code name} (its group and address) saving to {@code durable}. */
        Effects create(DurableState durable, Transport<QuorumMessage> transport, Scheduler scheduler, String name,
                Consumer<RuntimeException> onWriteFailure);
    }
}
