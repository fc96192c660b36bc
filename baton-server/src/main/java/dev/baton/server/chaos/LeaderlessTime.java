package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import dev.baton.server.chaos.HistoryEvent.Fault;
import dev.baton.server.chaos.HistoryEvent.Lost;
import dev.baton.server.chaos.HistoryEvent.Pause;
import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An estimate of how long each trial went without a leader, from the nodes' own leadership events.
 *
 * <p>How it is computed: a node <em>holds</em> term t from its {@code acquired} event for t (the {@code mono} time,
 * when the node learned it leads) until the first of
 * <ul>
 *   <li>its {@code lost} event for t,</li>
 *   <li>a {@code crash} of the node,</li>
 *   <li>the start of a {@code pause} of the node,</li>
 *   <li>the start of a {@code fault} that targets the node and cuts it off (a partition, {@code store-blackhole} or
 *       {@code store-reset}): the node can no longer renew, and whether it notices before its lease runs out is not
 *       leadership anyone else can use,</li>
 *   <li>an {@code acquired} event of a higher term, by any node (the store has moved on).</li>
 * </ul>
 * With none of those, the holding lasts past the end of the history. Holdings are computed over the whole history,
 * so a leader elected in one trial still counts in the next. A trial's leaderless time is then the part of
 * {@code [start, end]} that no holding covers. It is an estimate: it trusts the nodes' view of their own leadership,
 * and counts a cut-off or paused node as no longer leading from the moment the fault starts, even while its lease
 * still runs in the store.
 *
 * <p>Ending a holding at a higher term's acquisition is right for leaderless time (the group has a leader either way),
 * but it hides an overlap: a deposed leader that still counts itself valid, beside its successor, looks like one
 * holding after the other. Overlaps are the {@link Exclusion} checker's job; it computes its own validity intervals
 * from the nodes' events and reads nothing computed here, so this rule cannot mask one.
 *
 * <p>In a run of several groups per node each group is computed on its own part of the history
 * ({@link History#groups()}): a leader of one group says nothing about another.
 *
 * <p>Cost: the end of each holding is found by binary search in per-node lists, except the next higher-term
 * acquisition, which is a forward scan in time from the holding's start; terms normally rise with time, so the scan
 * stops after a step or two.
 */
final class LeaderlessTime {

    /** {@code node} held {@code term} from {@code from} until {@code until} ({@link Long#MAX_VALUE}: still held). */
    record Holding(String node, long term, long from, long until) {
    }

    private record NodeTerm(String node, long term) {
    }

    private LeaderlessTime() {
    }

    /** What ends a holding besides its loss, a crash and a higher term. */
    enum Cuts {
        /** A pause of the node, or a fault that cuts it off, ends it when it starts: for leaderless time. */
        END_HOLDINGS,
        /** Nothing else: a holding as the node itself sees it, as the harness counts a leader. */
        IGNORED
    }

    /** Every holding in {@code history} (one group's), ordered by start. */
    static List<Holding> holdings(History history) {
        return holdings(history, Cuts.END_HOLDINGS);
    }

    /** Every holding in {@code history} (one group's), ordered by start, ended as {@code cuts} says. */
    static List<Holding> holdings(History history, Cuts cutsEnd) {
        List<Acquired> acquisitions = new ArrayList<>(history.eventsOf(Acquired.class));
        acquisitions.sort(Comparator.comparingLong(Acquired::mono));
        long[] acquiredAt = acquisitions.stream().mapToLong(Acquired::mono).toArray();

        Map<NodeTerm, List<Long>> losses = new HashMap<>();
        for (Lost lost : history.eventsOf(Lost.class)) {
            losses.computeIfAbsent(new NodeTerm(lost.node(), lost.term()), key -> new ArrayList<>()).add(lost.mono());
        }
        Map<String, List<Long>> cuts = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof Crash crash) {
                cuts.computeIfAbsent(crash.node(), node -> new ArrayList<>()).add(crash.mono());
            } else if (cutsEnd == Cuts.IGNORED) {
                continue;
            } else if (event instanceof Pause pause) {
                cuts.computeIfAbsent(pause.node(), node -> new ArrayList<>()).add(pause.start());
            } else if (event instanceof Fault fault && fault.target() != null && fault.fault().cutsOffTarget()) {
                cuts.computeIfAbsent(fault.target(), node -> new ArrayList<>()).add(fault.start());
            }
        }
        losses.values().forEach(Collections::sort);
        cuts.values().forEach(Collections::sort);

        List<Holding> holdings = new ArrayList<>(acquisitions.size());
        for (Acquired held : acquisitions) {
            long until = Math.min(
                    firstAtOrAfter(losses.getOrDefault(new NodeTerm(held.node(), held.term()), List.of()), held.mono()),
                    firstAtOrAfter(cuts.getOrDefault(held.node(), List.of()), held.mono()));
            until = Math.min(until, nextHigherTerm(acquisitions, acquiredAt, held));
            holdings.add(new Holding(held.node(), held.term(), held.mono(), until));
        }
        return holdings;
    }

    /**
     * Each trial's leaderless time in nanoseconds, by trial number, in the order the trials were recorded. In a run of
     * several groups per node, a trial's leaderless time is that of its worst group.
     */
    static Map<Integer, Long> perTrial(History history) {
        Map<Integer, Long> worst = new LinkedHashMap<>();
        for (History.Group group : history.groups()) {
            perTrialOfOneGroup(group.history()).forEach((trial, nanos) -> worst.merge(trial, nanos, Math::max));
        }
        return worst;
    }

    /**
     * Every (trial, group) pair's leaderless time in nanoseconds, for the report of a run of several groups per node;
     * one value per trial in a run of one group.
     */
    static List<Long> perTrialAndGroup(History history) {
        List<Long> all = new ArrayList<>();
        for (History.Group group : history.groups()) {
            all.addAll(perTrialOfOneGroup(group.history()).values());
        }
        return all;
    }

    private static Map<Integer, Long> perTrialOfOneGroup(History history) {
        List<Holding> holdings = holdings(history);
        Map<Integer, Long> leaderless = new LinkedHashMap<>();
        for (Trial trial : history.eventsOf(Trial.class)) {
            leaderless.put(trial.trial(), uncovered(holdings, trial.start(), trial.end()));
        }
        return leaderless;
    }

    /** The part of {@code [start, end]}, in nanoseconds, that none of {@code holdings} covers. */
    static long uncovered(List<Holding> holdings, long start, long end) {
        List<long[]> clipped = new ArrayList<>();
        for (Holding holding : holdings) {
            long from = Math.max(holding.from(), start);
            long until = Math.min(holding.until(), end);
            if (from < until) {
                clipped.add(new long[] {from, until});
            }
        }
        clipped.sort(Comparator.comparingLong(interval -> interval[0]));
        long covered = 0;
        long reached = start;
        for (long[] interval : clipped) {
            long from = Math.max(interval[0], reached);
            if (interval[1] > from) {
                covered += interval[1] - from;
                reached = interval[1];
            }
        }
        return (end - start) - covered;
    }

    private static long firstAtOrAfter(List<Long> sortedTimes, long from) {
        int index = Collections.binarySearch(sortedTimes, from);
        if (index < 0) {
            index = -index - 1;
        }
        return index < sortedTimes.size() ? sortedTimes.get(index) : Long.MAX_VALUE;
    }

    private static long nextHigherTerm(List<Acquired> byMono, long[] acquiredAt, Acquired held) {
        int index = lowerBound(acquiredAt, held.mono());
        for (int i = index; i < byMono.size(); i++) {
            if (byMono.get(i).term() > held.term()) {
                return byMono.get(i).mono();
            }
        }
        return Long.MAX_VALUE;
    }

    private static int lowerBound(long[] sorted, long value) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (sorted[middle] < value) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
