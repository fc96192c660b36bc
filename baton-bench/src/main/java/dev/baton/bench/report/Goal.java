package dev.baton.bench.report;

import dev.baton.bench.stats.Findings;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Summary;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * One goal of the summary: a question, where in the run its answer is found, the bound it must meet and, where a
 * peer was measured in the same run, which row is the peer. Evaluated on the {@link Findings} of a report run.
 */
interface Goal {

    /** The summary's row for this goal. */
    Row evaluate(Findings findings);

    /** One row of the summary table; {@code run} is the id of the report run it was read from. */
    record Row(String goal, String baton, String peer, String ratio, String bound, String verdict, String run) {
        static Row notMeasured(String goal, String bound, String why, String run) {
            return new Row(goal, "not measured (" + why + ")", "—", "—", bound, "not measured", run);
        }

        boolean missed() {
            return verdict.contains("missed");
        }
    }

    /** The percentile a latency goal bounds. */
    enum Metric {
        P50("p50", Summary::p50),
        P99("p99", Summary::p99);

        final String label;
        final Function<Summary, Long> of;

        Metric(String label, Function<Summary, Long> of) {
            this.label = label;
            this.of = of;
        }
    }

    /**
     * Baton's row ({@code baton}, in a section whose heading contains {@code section}) at {@code metric} must be at
     * most {@code boundMillis}; with {@code beatPeer}, also below the peer's row at the same metric. A candidate is
     * found by its exact name first, then as the first whose name starts with the one given.
     *
     * @param peer     the peer's candidate name, or null if no peer is measured for this goal
     * @param peerName how the table names the peer (with its version), or null
     */
    static Goal latency(String goal, String run, String section, String baton, String peer, String peerName,
            Metric metric, double boundMillis, boolean beatPeer) {
        return compared(goal, run, section, baton, peer, peerName, metric, boundMillis,
                beatPeer ? BELOW_PEER : Double.NaN);
    }

    /**
     * Baton's row at {@code metric} must be within {@code maxRatio} times the peer's (at most; e.g. 1.5 for "within
     * 1.5x of the hand-written floor").
     */
    static Goal withinPeer(String goal, String run, String section, String baton, String peer, String peerName,
            Metric metric, double maxRatio) {
        return compared(goal, run, section, baton, peer, peerName, metric, Double.NaN, maxRatio);
    }

    /** {@code peerRatio} value meaning "strictly below the peer". */
    double BELOW_PEER = 1.0;

    private static Goal compared(String goal, String run, String section, String baton, String peer,
            String peerName, Metric metric, double boundMillis, double peerRatio) {
        boolean beatPeer = !Double.isNaN(peerRatio);
        return findings -> {
            String bound = bound(metric, boundMillis, peerRatio, peerName);
            List<Findings.Series> series = findings.series(run).stream()
                    .filter(s -> s.section().toLowerCase(Locale.ROOT).contains(section.toLowerCase(Locale.ROOT)))
                    .toList();
            Optional<Findings.Series> ours = find(series, baton);
            if (ours.isEmpty()) {
                return Row.notMeasured(goal, bound, series.isEmpty() ? "the run showed no table here"
                        : "no row " + baton, run);
            }
            Summary b = ours.get().summary();
            long value = metric.of.apply(b);
            boolean met = Double.isNaN(boundMillis) || value <= boundMillis * 1e6;
            String peerCell = "—";
            String ratio = "—";
            Optional<Findings.Series> theirs = peer == null ? Optional.empty() : find(series, peer);
            if (theirs.isPresent()) {
                Summary p = theirs.get().summary();
                long peerValue = metric.of.apply(p);
                peerCell = peerName + ": " + pair(p);
                double r = (double) value / Math.max(1, peerValue);
                ratio = MarkdownTable.ratio(r) + " at " + metric.label;
                if (beatPeer) {
                    met &= peerRatio == BELOW_PEER ? r < 1 : r <= peerRatio;
                }
            } else if (peer != null) {
                peerCell = peerName + ": not measured";
                met &= !beatPeer;
            }
            return new Row(goal, ours.get().candidate() + ": " + pair(b), peerCell, ratio, bound,
                    met ? "**met**" : "**missed**", run);
        };
    }

    private static Optional<Findings.Series> find(List<Findings.Series> series, String candidate) {
        Optional<Findings.Series> exact = series.stream().filter(s -> s.candidate().equals(candidate)).findFirst();
        return exact.isPresent() ? exact : series.stream().filter(s -> s.candidate().startsWith(candidate))
                .findFirst();
    }

    /** p50 / p99 in milliseconds. */
    static String pair(Summary s) {
        return MarkdownTable.millis(s.p50()) + " / " + MarkdownTable.millis(s.p99()) + " ms";
    }

    private static String bound(Metric metric, double boundMillis, double peerRatio, String peerName) {
        String text = Double.isNaN(boundMillis) ? "" : metric.label + " <= " + trim(boundMillis) + " ms";
        if (!Double.isNaN(peerRatio)) {
            text += (text.isEmpty() ? "" : ", and ") + metric.label + (peerRatio == BELOW_PEER ? " below "
                    : " within " + trim(peerRatio) + "× ") + peerName + "'s";
        }
        return text;
    }

    private static String trim(double millis) {
        return millis == Math.rint(millis) ? Long.toString((long) millis) : Double.toString(millis);
    }
}
