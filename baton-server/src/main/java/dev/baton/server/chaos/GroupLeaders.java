package dev.baton.server.chaos;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * With {@code --groups}: who leads each of the groups the harness does not drive (all but {@link ChaosRun#GROUP}), as
 * the nodes' own lines say, so that a trial can wait until every group has a leader before it injects its fault, as it
 * waits for the driven group's. Updated from the nodes' reader threads; read by the trial's thread.
 */
final class GroupLeaders {

    private final List<String> groups;
    /** Per group, the term each node announced and has not yet lost. */
    private final Map<String, Map<String, Long>> held = new ConcurrentHashMap<>();

    /** The groups to watch: {@code chaos-2} to {@code chaos-N} for {@code count} groups; none for one. */
    GroupLeaders(int count) {
        this.groups = IntStream.rangeClosed(2, count).mapToObj(k -> ChaosRun.GROUP + "-" + k)
                .toList();
    }

    /** {@code node} said it leads {@code group} under {@code term}. */
    void acquired(String group, String node, long term) {
        held.computeIfAbsent(group, g -> new ConcurrentHashMap<>()).put(node, term);
    }

    /** {@code node} said it no longer leads {@code group} under {@code term}. */
    void lost(String group, String node, long term) {
        Map<String, Long> leaders = held.get(group);
        if (leaders != null) {
            leaders.remove(node, term);
        }
    }

    /** {@code node}'s process is gone: it leads nothing any more. */
    void forget(String node) {
        held.values().forEach(leaders -> leaders.remove(node));
    }

    /** Forgets every leadership announced so far: the nodes moved to a fresh store, where each group starts anew. */
    void forgetAll() {
        held.clear();
    }

    /** How many of the watched groups no node in {@code running} leads. */
    int unled(Predicate<String> running) {
        int unled = 0;
        for (String group : groups) {
            Map<String, Long> leaders = held.getOrDefault(group, Map.of());
            if (leaders.keySet().stream().noneMatch(running)) {
                unled++;
            }
        }
        return unled;
    }
}
