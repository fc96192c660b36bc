package dev.baton.bench.stats;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The latency table of one scenario pass: one row per candidate with p50, p90, p99, max and mean in milliseconds,
 * and, when a baseline candidate is named, each percentile as a ratio to the baseline's (2.00× = twice as slow).
 */
public final class LatencyReport {

    private final Map<String, Summary> rows = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    /** Adds (or replaces) a candidate's row, with an optional remark shown in the last column. */
    public LatencyReport add(String candidate, Summary summary, String note) {
        rows.put(candidate, summary);
        notes.put(candidate, note == null ? "" : note);
        return this;
    }

    public Map<String, Summary> rows() {
        return Map.copyOf(rows);
    }

    /** The candidates in the order their rows were added. */
    public java.util.List<String> candidates() {
        return java.util.List.copyOf(rows.keySet());
    }

    /** The rows in the order they were added. */
    Map<String, Summary> rowsInOrder() {
        return java.util.Collections.unmodifiableMap(rows);
    }

    /** The latency table. Rendering it is showing it: while {@link Findings} are open its rows are recorded there. */
    public String table() {
        Findings.rendered(this);
        MarkdownTable table = new MarkdownTable("candidate", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", "mean ms",
                "notes");
        rows.forEach((name, s) -> table.row(name, String.valueOf(s.count()), MarkdownTable.millis(s.p50()),
                MarkdownTable.millis(s.p90()), MarkdownTable.millis(s.p99()), MarkdownTable.millis(s.max()),
                MarkdownTable.millis(s.mean()), notes.get(name)));
        return table.render();
    }

    /** Every other candidate's percentiles divided by {@code baseline}'s; empty if the baseline has no row. */
    public String ratios(String baseline) {
        Summary base = rows.get(baseline);
        if (base == null || rows.size() < 2) {
            return "";
        }
        MarkdownTable table = new MarkdownTable("candidate", "p50 vs " + baseline, "p90", "p99", "max", "mean");
        rows.forEach((name, s) -> {
            if (!name.equals(baseline)) {
                table.row(name, MarkdownTable.ratio((double) s.p50() / base.p50()),
                        MarkdownTable.ratio((double) s.p90() / base.p90()),
                        MarkdownTable.ratio((double) s.p99() / base.p99()),
                        MarkdownTable.ratio((double) s.max() / base.max()),
                        MarkdownTable.ratio(s.mean() / base.mean()));
            }
        });
        return table.render();
    }
}
