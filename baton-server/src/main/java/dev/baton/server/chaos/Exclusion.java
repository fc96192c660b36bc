package dev.baton.server.chaos;

import dev.baton.peer.bully.BullyConfig;
import dev.baton.server.chaos.HistoryEvent.Acquired;
import dev.baton.server.chaos.HistoryEvent.Crash;
import dev.baton.server.chaos.HistoryEvent.Lost;
import dev.baton.server.chaos.HistoryEvent.ValidUntil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Exclusion: at no instant do two different nodes both count themselves leader of the same group. Each group is
 * checked on its own part of the history ({@link History#groups()}; a run has one unless its nodes run several,
 * {@code --groups}), so leaders of different groups at the same instant are fine, and a node's events of one group
 * never end or extend its leadership of another, even under the same term number. A node counts itself leader of a
 * term while its {@code Leadership} for it could answer {@code isValid()} true: its <em>validity interval</em> runs from its {@code acquired} event ({@code mono}, when the
 * node learned it leads) until the first of
 * <ul>
 *   <li>its {@code lost} event for the term,</li>
 *   <li>a {@code crash} of the node,</li>
 *   <li>the latest deadline the node recorded for the term ({@code valid-until}; deadlines only move forward), which a
 *       paused or cut-off leader reaches without telling anyone.</li>
 * </ul>
 * A term for which the node recorded no deadline ends at its {@code lost} or crash only, and a violation says so; one
 * with none of the three lasts until the end of the history. Nothing else ends an interval: in particular not another
 * node's acquisition of a higher term, since a leader that has not yet noticed it was deposed overlapping its
 * successor is exactly what this checker exists to catch. One violation per pair of intervals of different nodes that
 * overlap, naming both nodes and terms, where each interval starts and ends, and how long they overlap.
 *
 * <p>Overlaps that begin in a trial whose fault can make the store forget acknowledged writes ({@code dataLoss}: a
 * store restarted empty, restored from an older state, a lagging replica promoted) are not checked: such a store can
 * forget the lease it granted and grant it again while its holder still counts itself leader, which exclusion does
 * not survive by design (it needs the store back no sooner than one lease after the loss, or the loss made
 * impossible). The report counts those trials apart, as {@link AcknowledgedItemsReadable} does.
 *
 * <p>Overlaps that begin in a trial whose fault is meant to break an assumption exclusion rests on
 * ({@link FaultKind#expectsExclusionToBreak()}: the store's clock stepping forward by more than the margin) are not
 * checked here either; {@link #whereAnAssumptionIsBroken()} checks those trials alone and the report shows its
 * findings as "assumption broken: expected", not as safety violations.
 *
 * <p>{@code bully} is not partition-safe and says so (docs/bully.md): while the network is split each side can elect a
 * leader, and the older one stops at its next store check, or at its deadline when it cannot reach the store. On that
 * backend an overlap up to that documented bound, {@code leadershipValidity}, is tolerated ({@link #forBackend}); a
 * longer one is a violation.
 *
 * <p>The intervals are computed here from the raw events, not taken from {@link LeaderlessTime}, whose holdings end
 * when a higher term is acquired. Cost: per-node and per-term lists, then a sweep over the intervals sorted by start
 * that compares each with the earlier ones; leaders follow one another, so few intervals are open at any time.
 */
final class Exclusion implements Checker {

    /** Why a validity interval ends. */
    enum End {
        LOST("lost"),
        CRASH("killed"),
        DEADLINE("deadline"),
        OPEN("still valid when the history ends");

        private final String label;

        End(String label) {
            this.label = label;
        }
    }

    /**
     * {@code node} counted itself leader under {@code term}, acquired in {@code trial}, from {@code from} until
     * {@code until} (ended by {@code end}, recorded in {@code endTrial}); {@code deadlineRecorded} is false when the
     * node recorded no {@code valid-until} for the term.
     */
    record Validity(String node, long term, int trial, long from, long until, End end, int endTrial,
            boolean deadlineRecorded) {
    }

    private record NodeTerm(String node, long term) {
    }

    /** The latest time the history reaches, and the trial of the event that reaches it. */
    private record HistoryEnd(int trial, long time) {
    }

    /** Which trials' overlaps a checker looks at. */
    private enum Scope {
        /** Trials whose fault keeps every assumption exclusion rests on: a violation there is a safety violation. */
        ASSUMPTIONS_KEPT,
        /** Trials whose fault is meant to break one: what they show is expected. */
        ASSUMPTION_BROKEN
    }

    private final Scope scope;
    /** The longest overlap the backend documents; 0 where it promises exclusion. */
    private final long toleratedNanos;

    /** The safety checker: every trial but those whose store can forget a grant or whose fault breaks an assumption. */
    Exclusion() {
        this(Scope.ASSUMPTIONS_KEPT, Duration.ZERO);
    }

    private Exclusion(Scope scope, Duration tolerated) {
        this.scope = scope;
        this.toleratedNanos = tolerated.toNanos();
    }

    /**
     * The safety checker for {@code backend} as {@code baton chaos} runs it: on {@code bully} (its fast profile)
     * overlaps up to {@code leadershipValidity}, the bound docs/bully.md states for a partition, are tolerated; on every
     * other backend none.
     */
    static Exclusion forBackend(String backend) {
        return backend.equals("bully")
                ? new Exclusion(Scope.ASSUMPTIONS_KEPT, BullyConfig.fast().build().leadershipValidity())
                : new Exclusion();
    }

    /**
     * The same check over the trials whose fault is meant to break an assumption exclusion rests on, and only those:
     * an overlap there shows the assumption is needed, and is reported as expected.
     */
    static Exclusion whereAnAssumptionIsBroken() {
        return new Exclusion(Scope.ASSUMPTION_BROKEN, Duration.ZERO);
    }

    @Override
    public String name() {
        return scope == Scope.ASSUMPTIONS_KEPT ? "exclusion" : "exclusion-assumption-broken";
    }

    @Override
    public Kind kind() {
        return scope == Scope.ASSUMPTIONS_KEPT ? Kind.SAFETY : Kind.EXPECTED;
    }

    @Override
    public List<Violation> check(History history) {
        return Checker.perGroup(history, this::checkGroup);
    }

    /** The check over one election group's part of the history. */
    private List<Violation> checkGroup(History history) {
        Timeline timeline = Timeline.of(history);
        Set<Integer> lossy = new HashSet<>();
        Set<Integer> breaking = new HashSet<>();
        for (HistoryEvent.Trial trial : history.eventsOf(HistoryEvent.Trial.class)) {
            if (trial.dataLoss()) {
                lossy.add(trial.trial());
            }
            if (trial.fault().expectsExclusionToBreak()) {
                breaking.add(trial.trial());
            }
        }
        List<Validity> intervals = new ArrayList<>(intervals(history));
        intervals.sort(Comparator.comparingLong(Validity::from));
        List<Violation> violations = new ArrayList<>();
        for (int later = 0; later < intervals.size(); later++) {
            Validity second = intervals.get(later);
            boolean counted = scope == Scope.ASSUMPTION_BROKEN ? breaking.contains(second.trial())
                    : !breaking.contains(second.trial()) && !lossy.contains(second.trial());
            if (!counted) {
                continue;
            }
            for (int earlier = 0; earlier < later; earlier++) {
                Validity first = intervals.get(earlier);
                long overlap = Math.min(first.until(), second.until()) - second.from();
                if (overlap > 0 && overlap > toleratedNanos && !first.node().equals(second.node())) {
                    violations.add(overlapping(first, second, overlap, timeline));
                }
            }
        }
        return violations;
    }

    /** Every validity interval in {@code history}, in the order of the {@code acquired} events. */
    static List<Validity> intervals(History history) {
        Map<NodeTerm, List<Lost>> losses = new HashMap<>();
        Map<NodeTerm, List<ValidUntil>> deadlines = new HashMap<>();
        Map<String, List<Crash>> crashes = new HashMap<>();
        HistoryEnd historyEnd = new HistoryEnd(0, Long.MIN_VALUE);
        for (HistoryEvent event : history.events()) {
            if (lastTime(event) > historyEnd.time()) {
                historyEnd = new HistoryEnd(event.trial(), lastTime(event));
            }
            if (event instanceof Lost lost) {
                losses.computeIfAbsent(new NodeTerm(lost.node(), lost.term()), key -> new ArrayList<>()).add(lost);
            } else if (event instanceof ValidUntil valid) {
                deadlines.computeIfAbsent(new NodeTerm(valid.node(), valid.term()), key -> new ArrayList<>())
                        .add(valid);
            } else if (event instanceof Crash crash) {
                crashes.computeIfAbsent(crash.node(), node -> new ArrayList<>()).add(crash);
            }
        }
        List<Validity> intervals = new ArrayList<>();
        for (Acquired acquired : history.eventsOf(Acquired.class)) {
            NodeTerm key = new NodeTerm(acquired.node(), acquired.term());
            intervals.add(interval(acquired, losses.getOrDefault(key, List.of()),
                    crashes.getOrDefault(acquired.node(), List.of()), deadlines.getOrDefault(key, List.of()),
                    historyEnd));
        }
        return intervals;
    }

    private static Validity interval(Acquired acquired, List<Lost> losses, List<Crash> crashes,
            List<ValidUntil> deadlines, HistoryEnd historyEnd) {
        long from = acquired.mono();
        // What ends this holding, and what ended an earlier one of the same node: a deadline recorded before that
        // belongs to the earlier holding (or process), not to this one.
        long until = Long.MAX_VALUE;
        long after = Long.MIN_VALUE;
        End end = End.OPEN;
        int endTrial = acquired.trial();
        for (Lost lost : losses) {
            if (lost.mono() >= from && lost.mono() < until) {
                until = lost.mono();
                end = End.LOST;
                endTrial = lost.trial();
            } else if (lost.mono() < from) {
                after = Math.max(after, lost.mono());
            }
        }
        for (Crash crash : crashes) {
            if (crash.mono() >= from && crash.mono() < until) {
                until = crash.mono();
                end = End.CRASH;
                endTrial = crash.trial();
            } else if (crash.mono() < from) {
                after = Math.max(after, crash.mono());
            }
        }
        ValidUntil latest = null;
        for (ValidUntil valid : deadlines) {
            if (valid.mono() > after && valid.mono() <= until
                    && (latest == null || valid.deadline() > latest.deadline())) {
                latest = valid;
            }
        }
        if (latest != null && latest.deadline() < until) {
            until = latest.deadline();
            end = End.DEADLINE;
            endTrial = latest.trial();
        }
        if (end == End.OPEN) {
            until = Math.max(from, historyEnd.time());
            endTrial = historyEnd.trial();
        }
        return new Validity(acquired.node(), acquired.term(), acquired.trial(), from, until, end, endTrial,
                latest != null);
    }

    /** The latest time an event reaches: its end for the events that have one. */
    private static long lastTime(HistoryEvent event) {
        if (event instanceof HistoryEvent.Trial trial) {
            return trial.end();
        }
        if (event instanceof HistoryEvent.Pause pause) {
            return pause.end();
        }
        if (event instanceof HistoryEvent.Fault fault) {
            return fault.end();
        }
        if (event instanceof HistoryEvent.Write write && write.answered() != null) {
            return write.answered();
        }
        if (event instanceof HistoryEvent.ItemWrite write && write.answered() != null) {
            return write.answered();
        }
        return event.time();
    }

    private Violation overlapping(Validity first, Validity second, long overlap, Timeline timeline) {
        String bound = toleratedNanos > 0 ? " (the backend documents at most " + Timeline.millis(toleratedNanos) + ")"
                : "";
        return new Violation(name(), second.trial(), first.node() + " (term " + first.term() + ") and "
                + second.node() + " (term " + second.term() + ") both counted themselves leader for "
                + Timeline.millis(overlap) + bound + ": " + describe(first, timeline) + ", "
                + describe(second, timeline));
    }

    private static String describe(Validity validity, Timeline timeline) {
        String end = validity.end().label;
        if (!validity.deadlineRecorded()) {
            end += ", no deadline recorded";
        }
        return validity.node() + " from " + timeline.in(validity.trial(), validity.from()) + " to "
                + timeline.in(validity.endTrial(), validity.until()) + " (" + end + ")";
    }
}
