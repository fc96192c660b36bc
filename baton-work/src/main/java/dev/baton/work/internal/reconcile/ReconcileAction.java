package dev.baton.work.internal.reconcile;

import dev.baton.work.plan.UnassignedReason;

/** What a reconciliation round asks the leader to do; the leader writes the store first, then tells workers. */
sealed interface ReconcileAction {

    /** The item this action is about. */
    String item();

    /**
     * Put the item on {@code to}: record it there (pending), then stop it on {@code from} (if any) and subscribe it on
     * {@code to}, with a model URL resolved now. {@code makeBeforeBreak} (a planned move off a worker that runs it):
     * {@code from} keeps running it until {@code to} is confirmed running it, and is stopped then.
     */
    record Assign(String item, String from, String to, boolean makeBeforeBreak) implements ReconcileAction {

        /** A move that stops the item on {@code from} at once. */
        Assign(String item, String from, String to) {
            this(item, from, to, false);
        }
    }

    /** The item is no longer desired: delete its record, then stop it on {@code from} (if any). */
    record Remove(String item, String from) implements ReconcileAction {
    }

    /** The item is desired but no worker can take it: record it failed with the reason, stop it on {@code from}. */
    record Unassign(String item, String from, UnassignedReason reason) implements ReconcileAction {
    }

    /**
     * {@code worker} runs the item already: hold it on the leader's connection without sending anything, and, if
     * {@code record}, record it active there (a new leader taking over what its predecessor subscribed).
     */
    record Adopt(String item, String worker, boolean record) implements ReconcileAction {
    }

    /** {@code worker}'s report lists the pending item: record it active. */
    record Confirm(String item, String worker) implements ReconcileAction {
    }

    /**
     * {@code worker} should run the item and does not: subscribe it again. {@code retry}: it was sent before and not
     * confirmed in time (counts as a failed attempt, backed off), rather than never sent on this connection.
     */
    record Resubscribe(String item, String worker, boolean retry) implements ReconcileAction {
    }

    /** {@code worker} runs the item but should not (a duplicate, a leftover): stop it there; no record changes. */
    record Unsubscribe(String item, String worker) implements ReconcileAction {
    }
}
