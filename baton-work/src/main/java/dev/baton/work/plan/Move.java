package dev.baton.work.plan;

import java.util.Objects;

/**
 * One change the plan makes to the current assignment: an item starts on a worker ({@link Kind#SUBSCRIBE}), stops
 * on one ({@link Kind#UNSUBSCRIBE}), or goes from one to another ({@link Kind#MOVE}).
 *
 * @param item the item's id
 * @param from the worker the item leaves, or {@code null} if it was on none
 * @param to the worker the item goes to, or {@code null} if it ends on none (no longer desired, a duplicate
 *     placement, or no room anywhere)
 */
public record Move(String item, String from, String to) {

    /** What a move asks the workers to do. */
    public enum Kind {
        /** The item was on no worker; {@code to} starts it. */
        SUBSCRIBE,
        /** The item ends on no worker; {@code from} stops it. */
        UNSUBSCRIBE,
        /** {@code from} stops the item and {@code to} starts it. */
        MOVE
    }

    public Move {
        Objects.requireNonNull(item, "item");
        if (from == null && to == null) {
            throw new IllegalArgumentException("a move of '" + item + "' needs a from or a to worker");
        }
    }

    /** Which of the three kinds this move is. */
    public Kind kind() {
        return from == null ? Kind.SUBSCRIBE : to == null ? Kind.UNSUBSCRIBE : Kind.MOVE;
    }
}
