package dev.baton.work.internal.route;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The leader's routing facts: every process's {@link ListenerCard} (indexed by item) and the worker -> process
 * assignment. It answers where one result goes ({@link #targets}): to every process with a per-item listener for
 * the item, and to the process assigned the result's worker if that process has global listeners, which alone is
 * told to run its global listeners. So no result goes to a process that neither listens to the item nor is assigned
 * its worker, and each result reaches the global listeners of exactly one process. Not thread-safe.
 */
public final class RoutingTable {

    /** One process to send a result to; {@code global}: whether its global listeners get it. */
    public record Target(String processId, boolean global) {
    }

    private final Map<String, ListenerCard> cards = new HashMap<>();
    private final Map<String, Set<String>> listenersByItem = new HashMap<>();
    private Map<String, String> assignment = new TreeMap<>();

    /** Takes a card if it is newer than the one known for its process; true if it changed the table. */
    public boolean offer(ListenerCard card) {
        ListenerCard old = cards.get(card.processId());
        if (!card.supersedes(old)) {
            return false;
        }
        if (old != null) {
            unindex(old);
        }
        cards.put(card.processId(), card);
        for (String item : card.items()) {
            listenersByItem.computeIfAbsent(item, i -> new HashSet<>(2)).add(card.processId());
        }
        return true;
    }

    /** Forgets a process's card; true if there was one. */
    public boolean remove(String processId) {
        ListenerCard old = cards.remove(processId);
        if (old != null) {
            unindex(old);
        }
        return old != null;
    }

    private void unindex(ListenerCard card) {
        for (String item : card.items()) {
            Set<String> processes = listenersByItem.get(item);
            if (processes != null) {
                processes.remove(card.processId());
                if (processes.isEmpty()) {
                    listenersByItem.remove(item);
                }
            }
        }
    }

    /** The card of a process, or null. */
    public ListenerCard card(String processId) {
        return cards.get(processId);
    }

    /** Every known card's process. */
    public Set<String> processes() {
        return new TreeSet<>(cards.keySet());
    }

    /** Whether the process announced global listeners. */
    public boolean hasGlobal(String processId) {
        ListenerCard card = cards.get(processId);
        return card != null && card.global();
    }

    /**
     * The processes that should own workers: the live ones with global listeners, or every live one when none has
     * any (so the assignment stays meaningful for the state page).
     */
    public List<String> owners(Collection<String> liveProcesses) {
        List<String> withGlobal = new ArrayList<>();
        for (String p : liveProcesses) {
            if (hasGlobal(p)) {
                withGlobal.add(p);
            }
        }
        return withGlobal.isEmpty() ? List.copyOf(liveProcesses) : withGlobal;
    }

    /** Replaces the worker -> process assignment. */
    public void setAssignment(Map<String, String> newAssignment) {
        this.assignment = new TreeMap<>(newAssignment);
    }

    /** The worker -> process assignment. */
    public Map<String, String> assignment() {
        return java.util.Collections.unmodifiableMap(assignment);
    }

    /** The process assigned a worker, or null. */
    public String ownerOf(String workerUrl) {
        return assignment.get(workerUrl);
    }

    /** Where a result of {@code item} from {@code workerUrl} goes; each process at most once. */
    public List<Target> targets(String workerUrl, String item) {
        String owner = assignment.get(workerUrl);
        String globalOwner = owner != null && hasGlobal(owner) ? owner : null;
        Set<String> listening = listenersByItem.get(item);
        List<Target> targets = new ArrayList<>(listening == null ? 1 : listening.size() + 1);
        if (globalOwner != null) {
            targets.add(new Target(globalOwner, true));
        }
        if (listening != null) {
            for (String p : listening) {
                if (!p.equals(globalOwner)) {
                    targets.add(new Target(p, false));
                }
            }
        }
        return targets;
    }
}
