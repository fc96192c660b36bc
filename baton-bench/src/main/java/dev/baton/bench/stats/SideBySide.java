package dev.baton.bench.stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The same scenario measured on several backends in one run, as one table: a row per candidate, a column per backend
 * with its p50 / p99 in milliseconds, and a dash where a candidate does not exist on that backend (Redisson on
 * PostgreSQL, the advisory lock on Redis).
 */
public final class SideBySide {

    private final Map<String, LatencyReport> columns = new LinkedHashMap<>();

    /** Adds one backend's report as a column named {@code backend}. */
    public SideBySide add(String backend, LatencyReport report) {
        columns.put(backend, report);
        return this;
    }

    /** How many backends were added. */
    public int size() {
        return columns.size();
    }

    /** True if no backend has a row. */
    public boolean isEmpty() {
        return columns.values().stream().allMatch(report -> report.candidates().isEmpty());
    }

    /** The table; candidates in the order they first appear. */
    public String table() {
        List<String> candidates = new ArrayList<>();
        columns.values().forEach(report -> report.candidates().forEach(c -> {
            if (!candidates.contains(c)) {
                candidates.add(c);
            }
        }));
        List<String> header = new ArrayList<>();
        header.add("candidate");
        columns.keySet().forEach(backend -> header.add(backend + " p50 / p99 ms"));
        MarkdownTable table = new MarkdownTable(header.toArray(String[]::new));
        for (String candidate : candidates) {
            List<String> cells = new ArrayList<>();
            cells.add(candidate);
            for (LatencyReport report : columns.values()) {
                Summary s = report.rows().get(candidate);
                cells.add(s == null ? "—" : MarkdownTable.millis(s.p50()) + " / " + MarkdownTable.millis(s.p99()));
            }
            table.row(cells.toArray(String[]::new));
        }
        return table.render();
    }
}
