package dev.baton.peer.quorum;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import java.util.Random;
import java.util.Set;

/**
 * What the parts of a quorum node (the proposer, the leader's duties, the phases) may use of the world: who they are,
 * the timings, time, timers, randomness, sending, the durable acceptor, and whom an election must reach. Sends go
 * through the node's {@link Effects} driver, so a part never needs to know whether a save is still on its way to disk.
 * Confined to the node's scheduler.
 */
interface NodeContext {

    PeerAddress self();

    QuorumConfig config();

    Clock clock();

    Scheduler scheduler();

    Random random();

    /** The acceptor, whose saves go through the driver before anything that depends on them is sent. */
    Acceptor acceptor();

    /** Sends {@code message} to {@code to} (never to this node itself, nothing once the node has closed). */
    void send(PeerAddress to, QuorumMessage message);

    /**
     * Runs {@code step} once every state saved so far is durable, never if a save failed: how the proposer counts this
     * node's own vote (see {@link Effects#afterDurable}).
     */
    void afterDurable(Runnable step);

    /** Every node this node may have to talk to in an election: seeds, members, and nodes heard from lately. */
    Set<PeerAddress> electionTargets();
}
