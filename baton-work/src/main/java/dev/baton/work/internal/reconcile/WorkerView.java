package dev.baton.work.internal.reconcile;

import java.util.Objects;
import java.util.Set;

/**
 * One worker as a reconciliation round sees it.
 *
 * @param url           the worker's URL (its id)
 * @param eligible      online (connected and reporting): may hold items
 * @param capacity      most items (count mode) or total weight (weighted mode) it may hold
 * @param cpu           CPU utilisation 0..1 (DRS tie-break)
 * @param memory        memory utilisation 0..1 (DRS tie-break)
 * @param reported      the items its latest state report on the current connection lists; {@code null} before the
 *                      first report on this connection
 * @param reportAtNanos when that report arrived
 * @param openedAtNanos when the current connection opened
 * @param held          the items the leader's connection holds for it (re-sent after a reconnect if the worker no
 *                      longer runs them)
 * @param away          not online since it was last (or, never online for this leader, since the leader started)
 * @param awaySinceNanos when it went away; meaningful only if {@code away}
 */
record WorkerView(String url, boolean eligible, long capacity, double cpu, double memory, Set<String> reported,
                         long reportAtNanos, long openedAtNanos, Set<String> held, boolean away,
                         long awaySinceNanos) {

    public WorkerView {
        Objects.requireNonNull(url, "url");
        reported = reported == null ? null : Set.copyOf(reported);
        held = Set.copyOf(held);
    }
}
