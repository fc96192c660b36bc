package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import dev.baton.server.chaos.HistoryEvent.Fault;
import dev.baton.server.chaos.HistoryEvent.Lost;
import dev.baton.server.chaos.HistoryEvent.ValidUntil;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the faults hit: how many trials had a fault active while an acquire was in flight, while the lease was being
 * handed over, or while a leader renewed. A fault that never meets one of those moments tests little of the engine's
 * safety: the races live there.
 *
 * <ul>
 *   <li><b>acquire in flight</b>: the fault's window meets {@code [since, mono]} of an {@code acquired} event, from the
 *       sending of the acquire that won to the moment its node learned it (acquires that lost are not recorded);</li>
 *   <li><b>hand-over</b>: it meets the gap between a leadership's end ({@code lost} or a crash of its node) and the next
 *       {@code acquired} by another node;</li>
 *   <li><b>renewal</b>: a {@code valid-until} that moved an existing leadership's deadline (a renewal answered) falls
 *       inside it.</li>
 * </ul>
 */
final class Coverage {

    /** Counts over the trials that injected a fault (had a {@code fault} event). */
    record Counts(int faultTrials, int acquire, int handover, int renewal, int any) {

        /** One line for the report. */
        String line() {
            if (faultTrials == 0) {
                return "Fault coverage: no trial injected a fault.";
            }
            return "Fault coverage: of " + faultTrials + " trials with a fault, " + acquire
                    + " were active while an acquire was in flight, " + handover + " during a hand-over, " + renewal
                    + " during a renewal; " + any + " (" + Math.round(100.0 * any / faultTrials) + " %) during at"
                    + " least one.";
        }
    }

    private Coverage() {
    }

    /**
     * What the faults of {@code history} hit. In a run of several groups per node, the leaderships of group
     * {@link ChaosRun#GROUP} only: the harness aims its hand-overs and its aimed faults at that group.
     */
    static Counts of(History runHistory) {
        History history = runHistory.drivenGroup();
        List<long[]> acquires = new ArrayList<>();
        for (Acquired acquired : history.eventsOf(Acquired.class)) {
            acquires.add(new long[] {acquired.since(), acquired.mono()});
        }
        List<long[]> handovers = handovers(history);
        List<Long> renewals = renewals(history);
        Map<Integer, List<Fault>> faultsByTrial = new LinkedHashMap<>();
        for (Fault fault : history.eventsOf(Fault.class)) {
            faultsByTrial.computeIfAbsent(fault.trial(), trial -> new ArrayList<>()).add(fault);
        }
        int acquire = 0;
        int handover = 0;
        int renewal = 0;
        int any = 0;
        for (List<Fault> faults : faultsByTrial.values()) {
            boolean a = faults.stream().anyMatch(fault -> meets(fault, acquires));
            boolean h = faults.stream().anyMatch(fault -> meets(fault, handovers));
            boolean r = faults.stream().anyMatch(fault -> renewals.stream()
                    .anyMatch(at -> at >= fault.start() && at <= fault.end()));
            acquire += a ? 1 : 0;
            handover += h ? 1 : 0;
            renewal += r ? 1 : 0;
            any += a || h || r ? 1 : 0;
        }
        return new Counts(faultsByTrial.size(), acquire, handover, renewal, any);
    }

    private static boolean meets(Fault fault, List<long[]> intervals) {
        return intervals.stream().anyMatch(interval -> interval[0] <= fault.end() && interval[1] >= fault.start());
    }

    /** From each leadership's end to the next acquisition by another node. */
    private static List<long[]> handovers(History history) {
        List<Acquired> acquisitions = new ArrayList<>(history.eventsOf(Acquired.class));
        acquisitions.sort(Comparator.comparingLong(Acquired::mono));
        List<long[]> handovers = new ArrayList<>();
        List<HistoryEvent> endings = new ArrayList<>();
        endings.addAll(history.eventsOf(Lost.class));
        endings.addAll(history.eventsOf(Crash.class));
        for (HistoryEvent ending : endings) {
            String node = ending instanceof Lost lost ? lost.node() : ((Crash) ending).node();
            long at = ending.time();
            acquisitions.stream().filter(next -> next.mono() >= at && !next.node().equals(node)).findFirst()
                    .ifPresent(next -> handovers.add(new long[] {at, next.mono()}));
        }
        return handovers;
    }

    /** The times of deadlines moved by a renewal: every valid-until but the first of each node's term. */
    private static List<Long> renewals(History history) {
        Set<String> started = new HashSet<>();
        List<Long> renewals = new ArrayList<>();
        List<ValidUntil> lines = new ArrayList<>(history.eventsOf(ValidUntil.class));
        lines.sort(Comparator.comparingLong(ValidUntil::mono));
        for (ValidUntil line : lines) {
            if (!started.add(line.node() + "/" + line.term())) {
                renewals.add(line.mono());
            }
        }
        return renewals;
    }
}
