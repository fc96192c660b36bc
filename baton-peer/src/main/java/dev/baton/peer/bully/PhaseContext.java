package dev.baton.peer.bully;

import dev.baton.core.time.Clock;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.internal.NodeOutput;
import dev.baton.peer.transport.PeerAddress;
import java.util.Random;

/**
 * What a phase of a {@link BullyNode} may use of its node: who it is, its timings, time, timers and randomness, the
 * leader store, sending to one peer or to every other member, and what the node tells the world. Phases never see
 * the node itself: they change phase only through the outcome interface each of them declares. Every call is made
 * on the node's scheduler.
 */
interface PhaseContext {

    String group();

    PeerAddress self();

    /** Random per process start: tells this process from an earlier one on the same address. */
    long incarnation();

    /** What this node tells the group about itself (it can change: {@code setMetadata}). */
    MemberCard card();

    BullyConfig config();

    Clock clock();

    Scheduler scheduler();

    Random random();

    LeaderStoreCalls store();

    /** Events and the published snapshot. */
    NodeOutput output();

    void send(PeerAddress to, BullyMessage message);

    /** Sends {@code message} to every other member in the table. */
    void broadcast(BullyMessage message);

    /** A leader-store call failed: shown as the problem; reported once per streak of failures. */
    void storeFailed(String failure);

    /** The node's problem (a failed store call, an error) is over. */
    void problemSolved();

    /** Something went wrong that the application should hear of: shown as the problem, reported as an error. */
    void reportError(String message);
}
