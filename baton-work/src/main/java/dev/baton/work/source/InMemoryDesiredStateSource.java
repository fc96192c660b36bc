package dev.baton.work.source;

import dev.baton.work.WorkItem;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Desired items held in this process's memory: for a single process, for tests, and for applications that compute
 * the desired state themselves. Only the leader's instance counts, so in a cluster every process must be told the
 * same changes (or use the store's items, {@code WorkCluster.subscribe}). After a change, call
 * {@code WorkCluster.requestRegeneration} so the leader reloads it now rather than at the next interval. Thread-safe.
 */
public final class InMemoryDesiredStateSource implements DesiredStateSource {

    private final Map<String, WorkItem> items = new TreeMap<>();

    /** Adds or replaces an item. */
    public synchronized void put(WorkItem item) {
        items.put(Objects.requireNonNull(item, "item").subscriptionIdentifier(), item);
    }

    /** Removes an item; false if there was none. */
    public synchronized boolean remove(String subscriptionIdentifier) {
        return items.remove(subscriptionIdentifier) != null;
    }

    /** Replaces every item. */
    public synchronized void replaceAll(Collection<WorkItem> newItems) {
        items.clear();
        newItems.forEach(this::put);
    }

    @Override
    public synchronized List<WorkItem> load() {
        return List.copyOf(items.values());
    }
}
