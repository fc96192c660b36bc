package dev.baton.peer.bully;

import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.bully.BullyNode.Phase;

/**
 * One phase of a {@link BullyNode}, from the moment the node enters it until it leaves it. A phase that waits (a
 * timer, a leader-store call) checks {@link #current()} when the wait ends: a late answer for a phase the node has
 * left is dropped. Phases that only mark where the node is ({@code CREATED}, {@code FOLLOWING}, {@code CLOSED}) are
 * plain instances of this class; the others extend it.
 */
class BullyPhase {

    private final Phase kind;
    private boolean ended;
    /** The phase's one pending timer, if any; stopped when the node leaves the phase. */
    protected Cancellable timer = Cancellable.NONE;

    BullyPhase(Phase kind) {
        this.kind = kind;
    }

    final Phase kind() {
        return kind;
    }

    /** Whether the node is still in this phase. */
    final boolean current() {
        return !ended;
    }

    /** The node leaves this phase: its timer stops, and every later callback of it finds it ended. */
    final void end() {
        ended = true;
        timer.cancel();
    }

    /** What the phase is doing, shown as the node's problem while there is no other; null if nothing to say. */
    String describe() {
        return null;
    }

    @Override
    public String toString() {
        return kind.toString();
    }
}
