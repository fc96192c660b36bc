package dev.baton.work.source;

import dev.baton.core.Registration;
import dev.baton.work.WorkItem;
import java.util.List;

/**
 * Where the desired items come from ("the database is the single source of truth"): the leader loads the whole
 * desired state from it on every {@code regenerate_subscriptions} notice, whenever the source says it changed
 * ({@link #watch}), and every reconcile interval (30 s) — level-triggered, never incremental.
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

    /**
     * Tells {@code changed} whenever what {@link #load} returns may have changed, so the leader reloads within
     * moments instead of at the next reconcile interval. Only the leader watches: from the moment it starts leading
     * the work cluster until it stops (then the registration is closed). Signals may be coalesced or spurious (a
     * reload that finds nothing new costs one query) but never carry the change itself: the next load reads it.
     * {@code changed} is cheap and may be called from any thread.
     *
     * <p>A source that cannot tell returns a registration that does nothing (the default): the reconcile interval
     * is then the only reload besides explicit requests. A watch that loses its channel should reconnect by itself
     * and signal once it is back, since changes may have been missed meanwhile; the interval stays the backstop.
     */
    default Registration watch(Runnable changed) {
        return () -> { };
    }
}
