package dev.baton.work.source;

import dev.baton.work.WorkItem;
import java.util.List;

/**
 * Where the desired items come from (seed 001: "the database is the single source of truth"): the leader loads the
 * whole desired state from it on every {@code regenerate_subscriptions} notice and every reconcile interval (30 s) —
 * level-triggered, never incremental.
 *
 * <p>{@link #load()} runs on the work cluster's source executor, never twice at once, and may block (a SQL query). If
 * it throws, the leader keeps the desired state it had and tries again at the next notice or interval: a failing
 * source never unsubscribes anything.
 *
 * <p>The items subscribed through the facade ({@code WorkCluster.subscribe}) or {@code PUT /work/items/{id}} live in
 * the store and are always desired as well; a source item with the same id takes precedence.
 *
 * <p>Shipped: {@link InMemoryDesiredStateSource} (one process, tests) and {@link JdbcDesiredStateSource} (a user's SQL
 * query). {@link #NONE} has no items.
 */
@FunctionalInterface
public interface DesiredStateSource {

    /** No items: only the store's items are desired. */
    DesiredStateSource NONE = List::of;

    /** The complete desired state now; duplicate ids are an error. */
    List<WorkItem> load() throws Exception;
}
