package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A term is issued once: no two different nodes ever acquire the same term (in any trials), and a node that was
 * killed does not acquire, after its restart, a term it already held before the kill. Either would let two writers
 * present the same fencing token. One violation per term held by several nodes, naming each holder's first
 * acquisition; one per re-acquisition across a crash. Terms belong to a group: in a run of several groups per node
 * each group is checked apart, and the same term in two groups is no violation.
 */
final class OneHolderPerTerm implements Checker {

    @Override
    public String name() {
        return "one-holder-per-term";
    }

    @Override
    public List<Violation> check(History history) {
        return Checker.perGroup(history, this::checkGroup);
    }

    /** The check over one election group's part of the history. */
    private List<Violation> checkGroup(History history) {
        Timeline timeline = Timeline.of(history);
        Map<Long, List<Acquired>> byTerm = new TreeMap<>();
        for (Acquired acquired : history.eventsOf(Acquired.class)) {
            byTerm.computeIfAbsent(acquired.term(), term -> new ArrayList<>()).add(acquired);
        }
        Map<String, List<Crash>> crashes = new LinkedHashMap<>();
        for (Crash crash : history.eventsOf(Crash.class)) {
            crashes.computeIfAbsent(crash.node(), node -> new ArrayList<>()).add(crash);
        }
        List<Violation> violations = new ArrayList<>();
        for (Map.Entry<Long, List<Acquired>> entry : byTerm.entrySet()) {
            List<Acquired> holders = new ArrayList<>(entry.getValue());
            holders.sort(Comparator.comparingLong(Acquired::mono));
            Map<String, Acquired> firstByNode = new LinkedHashMap<>();
            for (Acquired acquired : holders) {
                firstByNode.putIfAbsent(acquired.node(), acquired);
            }
            if (firstByNode.size() > 1) {
                violations.add(severalNodes(entry.getKey(), List.copyOf(firstByNode.values()), timeline));
            }
            Map<String, Acquired> previousByNode = new LinkedHashMap<>();
            for (Acquired acquired : holders) {
                Acquired previous = previousByNode.put(acquired.node(), acquired);
                if (previous != null) {
                    crashBetween(crashes.getOrDefault(acquired.node(), List.of()), previous, acquired)
                            .ifPresent(crash -> violations.add(acrossCrash(previous, crash, acquired, timeline)));
                }
            }
        }
        return violations;
    }

    private static Optional<Crash> crashBetween(List<Crash> crashes, Acquired before, Acquired after) {
        return crashes.stream().filter(crash -> crash.mono() >= before.mono() && crash.mono() <= after.mono())
                .findFirst();
    }

    private Violation severalNodes(long term, List<Acquired> firsts, Timeline timeline) {
        StringBuilder message = new StringBuilder("term ").append(term).append(" acquired by ")
                .append(firsts.size()).append(" nodes:");
        for (Acquired acquired : firsts) {
            message.append(' ').append(acquired.node()).append(" at ")
                    .append(timeline.in(acquired.trial(), acquired.mono())).append(';');
        }
        message.setLength(message.length() - 1);
        Acquired last = firsts.get(firsts.size() - 1);
        return new Violation(name(), last.trial(), message.toString());
    }

    private Violation acrossCrash(Acquired before, Crash crash, Acquired again, Timeline timeline) {
        return new Violation(name(), again.trial(), again.node() + " acquired term " + again.term() + " at "
                + timeline.in(before.trial(), before.mono()) + ", was killed at " + timeline.in(crash.trial(), crash.mono())
                + " and acquired term " + again.term() + " again at " + timeline.in(again.trial(), again.mono()));
    }
}
