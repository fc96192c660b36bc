package dev.baton.work.internal.cluster;

import dev.baton.work.DetectionListener;
import dev.baton.work.internal.route.ListenerCard;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;

/**
 * This process's detection listeners, per item and global, and the listener card that describes them. Any thread
 * adds and removes; the card's version goes up whenever the set of items with listeners, or whether there are global
 * ones, changes, and {@code changed} is told the new version.
 */
final class LocalListeners {

    private final String processId;
    private final long incarnation;
    private final LongConsumer changed;
    private final Map<String, List<DetectionListener>> perItem = new ConcurrentHashMap<>();
    private final List<DetectionListener> global = new CopyOnWriteArrayList<>();
    private long version;

    LocalListeners(String processId, long incarnation, LongConsumer changed) {
        this.processId = processId;
        this.incarnation = incarnation;
        this.changed = changed;
    }

    /** Adds a per-item listener; returns the card version that includes it. */
    long add(String item, DetectionListener listener) {
        long v;
        synchronized (this) {
            List<DetectionListener> list = perItem.computeIfAbsent(item, i -> new CopyOnWriteArrayList<>());
            boolean first = list.isEmpty();
            list.add(listener);
            v = first ? ++version : version;
        }
        changed.accept(v);
        return v;
    }

    /** Adds a global listener; returns the card version that includes it. */
    long addGlobal(DetectionListener listener) {
        long v;
        synchronized (this) {
            boolean first = global.isEmpty();
            global.add(listener);
            v = first ? ++version : version;
        }
        changed.accept(v);
        return v;
    }

    /** Removes one per-item listener. */
    void remove(String item, DetectionListener listener) {
        boolean last;
        synchronized (this) {
            List<DetectionListener> list = perItem.get(item);
            if (list == null || !list.remove(listener)) {
                return;
            }
            last = list.isEmpty();
            if (last) {
                perItem.remove(item);
                version++;
            }
        }
        if (last) {
            changed.accept(version());
        }
    }

    /** Removes every per-item listener of the items. */
    void removeAll(Set<String> items) {
        boolean any = false;
        synchronized (this) {
            for (String item : items) {
                any |= perItem.remove(item) != null;
            }
            if (any) {
                version++;
            }
        }
        if (any) {
            changed.accept(version());
        }
    }

    /** Removes a global listener. */
    void removeGlobal(DetectionListener listener) {
        boolean last;
        synchronized (this) {
            if (!global.remove(listener)) {
                return;
            }
            last = global.isEmpty();
            if (last) {
                version++;
            }
        }
        if (last) {
            changed.accept(version());
        }
    }

    /** The items with per-item listeners. */
    Set<String> items() {
        return new TreeSet<>(perItem.keySet());
    }

    /** The per-item listeners of an item (empty if none). */
    List<DetectionListener> of(String item) {
        List<DetectionListener> list = perItem.get(item);
        return list == null ? List.of() : list;
    }

    List<DetectionListener> global() {
        return global;
    }

    synchronized long version() {
        return version;
    }

    /** The card describing the listeners now. */
    synchronized ListenerCard card() {
        return new ListenerCard(processId, incarnation, version, perItem.keySet(), !global.isEmpty());
    }
}
