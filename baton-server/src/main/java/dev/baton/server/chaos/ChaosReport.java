package dev.baton.server.chaos;

import dev.baton.server.chaos.HistoryEvent.Trial;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a chaos run: how many trials, which faults, what each checker found (the goal is zero violations;
 * the first few messages are quoted), and per fault kind how long the cluster went without a leader (p50/p99 of the
 * trials' {@link LeaderlessTime}) and how often it missed the bound for a leader after healing. Renders as Markdown
 * (for documents) and as plain text (for the terminal); {@link #sideBySideMarkdown} and {@link #sideBySideText} put
 * two runs' violations next to each other, e.g. the normal mode and a naive one that should break.
 */
final class ChaosReport {

    /** How many violation messages each checker quotes. */
    static final int QUOTED_PER_CHECKER = 3;

    /** What one checker found. */
    record CheckerResult(String checker, Checker.Kind kind, List<Violation> violations) {
        CheckerResult {
            violations = List.copyOf(violations);
        }

        /** Runs {@code checker} over {@code history}. */
        static CheckerResult of(Checker checker, History history) {
            return new CheckerResult(checker.name(), checker.kind(), checker.check(history));
        }

        /** Whether its violations are safety violations. */
        boolean safety() {
            return kind == Checker.Kind.SAFETY;
        }
    }

    /** The trials of one fault kind. */
    record FaultSummary(FaultKind fault, int trials, long leaderlessP50Nanos, long leaderlessP99Nanos,
            int leaderMisses) {
    }

    private final String title;
    private final int trials;
    private final int dataLossTrials;
    private final int assumptionBrokenTrials;
    private final List<CheckerResult> results;
    private final List<FaultSummary> faults;
    private final Coverage.Counts coverage;
    /** The trials that added a second fault, by pair; empty if none did. */
    private final String pairs;
    /** How a run of several groups per node was checked, with its per-group leaderless times; empty for one group. */
    private final String groups;

    private ChaosReport(String title, int trials, int dataLossTrials, int assumptionBrokenTrials,
            List<CheckerResult> results, List<FaultSummary> faults, Coverage.Counts coverage, String pairs,
            String groups) {
        this.title = title;
        this.trials = trials;
        this.dataLossTrials = dataLossTrials;
        this.assumptionBrokenTrials = assumptionBrokenTrials;
        this.results = List.copyOf(results);
        this.faults = List.copyOf(faults);
        this.coverage = coverage;
        this.pairs = pairs;
        this.groups = groups;
    }

    /**
     * Runs {@code checkers} over {@code history} and reports the run under {@code title} (e.g. the backend). An
     * expected checker runs only if some trial's fault breaks an assumption; otherwise it has nothing to look at and
     * no row; nor does a checker with nothing to look at in this history ({@link Checker#appliesTo}).
     */
    static ChaosReport run(String title, History history, List<Checker> checkers) {
        boolean assumptionBroken = assumptionBrokenTrials(history) > 0;
        List<CheckerResult> results = new ArrayList<>();
        for (Checker checker : checkers) {
            if ((checker.kind() != Checker.Kind.EXPECTED || assumptionBroken) && checker.appliesTo(history)) {
                results.add(CheckerResult.of(checker, history));
            }
        }
        return of(title, history, results);
    }

    /** Reports {@code history} with checker results computed elsewhere. */
    static ChaosReport of(String title, History history, List<CheckerResult> results) {
        List<Trial> trials = history.eventsOf(Trial.class);
        Map<Integer, Long> leaderless = LeaderlessTime.perTrial(history);
        Map<FaultKind, List<Long>> leaderlessByFault = new EnumMap<>(FaultKind.class);
        Map<FaultKind, Integer> missesByFault = new EnumMap<>(FaultKind.class);
        // One per trial in a run of one group; in a run of several, one per group that missed.
        Map<Integer, Integer> missesByTrial = new HashMap<>();
        new LeaderAfterHeal().check(history).forEach(miss -> missesByTrial.merge(miss.trial(), 1, Integer::sum));
        for (Trial trial : trials) {
            leaderlessByFault.computeIfAbsent(trial.fault(), kind -> new ArrayList<>())
                    .add(leaderless.get(trial.trial()));
            missesByFault.merge(trial.fault(), missesByTrial.getOrDefault(trial.trial(), 0), Integer::sum);
        }
        List<FaultSummary> faults = new ArrayList<>();
        leaderlessByFault.forEach((kind, times) -> faults.add(new FaultSummary(kind, times.size(),
                percentile(times, 50), percentile(times, 99), missesByFault.get(kind))));
        return new ChaosReport(title, trials.size(), AcknowledgedItemsReadable.skippedTrials(history),
                assumptionBrokenTrials(history), results, faults, Coverage.of(history), FaultPairs.line(history),
                groupsLine(history));
    }

    /**
     * For a run of several groups per node: how many, that each is checked on its own, and the leaderless time over
     * every (trial, group) pair; empty for a run of one group.
     */
    private static String groupsLine(History history) {
        int groups = history.groups().size();
        if (groups <= 1) {
            return "";
        }
        List<Long> pairs = LeaderlessTime.perTrialAndGroup(history);
        return "Groups: " + groups + " elections per node, sharing its store session; every leadership checker ran on "
                + "each group apart. Leaderless times below are each trial's worst group; over all " + pairs.size()
                + " (trial, group) pairs p50 " + ReportTable.millis(percentile(pairs, 50)) + " ms, p99 "
                + ReportTable.millis(percentile(pairs, 99)) + " ms, max "
                + ReportTable.millis(percentile(pairs, 100)) + " ms.";
    }

    /** How many trials ran a fault meant to break an assumption exclusion rests on. */
    private static int assumptionBrokenTrials(History history) {
        return (int) history.eventsOf(Trial.class).stream().filter(trial -> trial.fault().expectsExclusionToBreak())
                .count();
    }

    /**
     * The nearest-rank percentile of {@code values} (the smallest value at least {@code p} percent of the values are
     * not above); 0 for no values.
     */
    static long percentile(List<Long> values, int p) {
        if (values.isEmpty()) {
            return 0;
        }
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    String title() {
        return title;
    }

    int trials() {
        return trials;
    }

    /** What the faults hit: acquires in flight, hand-overs, renewals. */
    Coverage.Counts coverage() {
        return coverage;
    }

    /** Trials whose fault can lose acknowledged writes; their items are not checked. */
    int dataLossTrials() {
        return dataLossTrials;
    }

    List<CheckerResult> results() {
        return results;
    }

    /** Per fault kind, in the order of {@link FaultKind}. */
    List<FaultSummary> faults() {
        return faults;
    }

    /** All safety violations; the goal is none. */
    int safetyViolations() {
        return results.stream().filter(CheckerResult::safety).mapToInt(result -> result.violations().size()).sum();
    }

    /** All liveness misses. */
    int livenessMisses() {
        return count(Checker.Kind.LIVENESS);
    }

    /** What the trials that break an assumption showed: reported as "assumption broken: expected". */
    int expectedViolations() {
        return count(Checker.Kind.EXPECTED);
    }

    private int count(Checker.Kind kind) {
        return results.stream().filter(result -> result.kind() == kind).mapToInt(result -> result.violations().size())
                .sum();
    }

    /** The report in Markdown: a summary line, the checkers, the faults, then the first violations quoted. */
    String markdown() {
        StringBuilder out = new StringBuilder("### ").append(title).append("\n\n").append(summary()).append("\n\n")
                .append(coverage.line()).append("\n\n");
        if (!pairs.isEmpty()) {
            out.append(pairs).append("\n\n");
        }
        if (!groups.isEmpty()) {
            out.append(groups).append("\n\n");
        }
        out.append(checkerTable().markdown()).append('\n').append(faultTable().markdown());
        List<String> quoted = quoted();
        if (!quoted.isEmpty()) {
            out.append("\nFirst violations:\n\n");
            quoted.forEach(line -> out.append("- ").append(line).append('\n'));
        }
        return out.toString();
    }

    /** The report as plain text for a terminal, with the same content as {@link #markdown()}. */
    String text() {
        StringBuilder out = new StringBuilder(title).append('\n').append("=".repeat(title.length())).append('\n');
        out.append(summary()).append('\n').append(coverage.line()).append('\n');
        if (!pairs.isEmpty()) {
            out.append(pairs).append('\n');
        }
        if (!groups.isEmpty()) {
            out.append(groups).append('\n');
        }
        out.append('\n').append(checkerTable().text()).append('\n').append(faultTable().text());
        List<String> quoted = quoted();
        if (!quoted.isEmpty()) {
            out.append("\nFirst violations:\n");
            quoted.forEach(line -> out.append("  ").append(line).append('\n'));
        }
        return out.toString();
    }

    /** Two runs' violations per checker next to each other, as a Markdown table. */
    static String sideBySideMarkdown(ChaosReport left, ChaosReport right) {
        return sideBySide(left, right).markdown();
    }

    /** Two runs' violations per checker next to each other, as plain text. */
    static String sideBySideText(ChaosReport left, ChaosReport right) {
        return sideBySide(left, right).text();
    }

    private static ReportTable sideBySide(ChaosReport left, ChaosReport right) {
        ReportTable table = new ReportTable("checker", "kind", left.title, right.title);
        table.row("trials", "", String.valueOf(left.trials), String.valueOf(right.trials));
        List<String> names = new ArrayList<>();
        for (ChaosReport report : List.of(left, right)) {
            for (CheckerResult result : report.results) {
                if (!names.contains(result.checker())) {
                    names.add(result.checker());
                }
            }
        }
        for (String name : names) {
            CheckerResult known = left.result(name) != null ? left.result(name) : right.result(name);
            table.row(name, kind(known), count(left.result(name)), count(right.result(name)));
        }
        return table;
    }

    private CheckerResult result(String checker) {
        return results.stream().filter(result -> result.checker().equals(checker)).findFirst().orElse(null);
    }

    private static String count(CheckerResult result) {
        return result == null ? "not run" : String.valueOf(result.violations().size());
    }

    private static String kind(CheckerResult result) {
        return result.kind().label();
    }

    private String summary() {
        StringBuilder line = new StringBuilder().append(trials).append(trials == 1 ? " trial" : " trials");
        if (dataLossTrials > 0) {
            line.append(", ").append(dataLossTrials).append(" with a fault that can lose acknowledged writes")
                    .append(" (their items and exclusion not checked)");
        }
        if (assumptionBrokenTrials > 0) {
            line.append(", ").append(assumptionBrokenTrials).append(" with a fault that breaks an assumption")
                    .append(" exclusion rests on (their exclusion reported apart)");
        }
        line.append(". Safety violations: ").append(safetyViolations()).append(" (goal 0).")
                .append(" Leader-after-heal misses: ").append(livenessMisses()).append('.');
        if (assumptionBrokenTrials > 0) {
            line.append(" Assumption broken, expected: ").append(expectedViolations())
                    .append(" exclusion overlaps.");
        }
        return line.toString();
    }

    private ReportTable checkerTable() {
        ReportTable table = new ReportTable("checker", "kind", "violations");
        for (CheckerResult result : results) {
            table.row(result.checker(), kind(result), String.valueOf(result.violations().size()));
        }
        return table;
    }

    private ReportTable faultTable() {
        ReportTable table = new ReportTable("fault", "trials", "leaderless p50 (ms)", "leaderless p99 (ms)",
                "leader-after-heal misses");
        for (FaultSummary fault : faults) {
            table.row(fault.fault().wireName(), String.valueOf(fault.trials()),
                    ReportTable.millis(fault.leaderlessP50Nanos()), ReportTable.millis(fault.leaderlessP99Nanos()),
                    String.valueOf(fault.leaderMisses()));
        }
        return table;
    }

    private List<String> quoted() {
        List<String> lines = new ArrayList<>();
        for (CheckerResult result : results) {
            List<Violation> violations = result.violations();
            violations.stream().limit(QUOTED_PER_CHECKER).map(Violation::toString).forEach(lines::add);
            if (violations.size() > QUOTED_PER_CHECKER) {
                lines.add(result.checker() + ": " + (violations.size() - QUOTED_PER_CHECKER) + " more");
            }
        }
        return lines;
    }
}
