package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Fault;
import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The multi-fault trials of a history, named by both their faults ({@code store-pause + kill-node}): a trial's first
 * fault is its {@code trial} event's, a second is a {@code fault} event of another kind in the same trial. The report
 * groups trials by their first fault; this says which of them had a second.
 */
final class FaultPairs {

    private FaultPairs() {
    }

    /** How many trials ran each pair, by {@code first + second}, in name order. */
    static Map<String, Integer> of(History history) {
        Map<Integer, FaultKind> firsts = history.eventsOf(Trial.class).stream()
                .collect(Collectors.toMap(Trial::trial, Trial::fault, (a, b) -> a));
        Map<Integer, FaultKind> seconds = new TreeMap<>();
        for (Fault fault : history.eventsOf(Fault.class)) {
            FaultKind first = firsts.get(fault.trial());
            if (first != null && fault.fault() != first) {
                seconds.put(fault.trial(), fault.fault());
            }
        }
        Map<String, Integer> pairs = new TreeMap<>();
        seconds.forEach((trial, second) -> pairs.merge(firsts.get(trial) + " + " + second, 1, Integer::sum));
        return pairs;
    }

    /** One line for the report, or empty if no trial had a second fault. */
    static String line(History history) {
        Map<String, Integer> pairs = of(history);
        if (pairs.isEmpty()) {
            return "";
        }
        int trials = pairs.values().stream().mapToInt(Integer::intValue).sum();
        return "Second faults: " + trials + (trials == 1 ? " trial" : " trials") + " added one: "
                + pairs.entrySet().stream().map(pair -> pair.getKey() + " (" + pair.getValue() + ")")
                        .collect(Collectors.joining(", ")) + ".";
    }
}
