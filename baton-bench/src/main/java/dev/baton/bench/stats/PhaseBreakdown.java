package dev.baton.bench.stats;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A latency split into consecutive phases, recorded per event and summarised per phase. The medians of the phases
 * roughly add up to the median total (medians of parts need not sum exactly).
 */
public final class PhaseBreakdown {

    private final Map<String, Samples> phases = new LinkedHashMap<>();
    private final Map<String, String> explanations = new LinkedHashMap<>();

    /** @param phaseExplanations phase name -> what happens in it, in order */
    public PhaseBreakdown(int warmup, int n, Map<String, String> phaseExplanations) {
        phaseExplanations.forEach((name, explanation) -> {
            phases.put(name, new Samples(warmup, n));
            explanations.put(name, explanation);
        });
    }

    /** Records one event: {@code instants} are its start, the boundaries between phases in order, and its end. */
    public void record(long... instants) {
        if (instants.length != phases.size() + 1) {
            throw new IllegalArgumentException("expected " + (phases.size() + 1) + " instants");
        }
        int i = 0;
        for (Samples samples : phases.values()) {
            samples.add(instants[i + 1] - instants[i]);
            i++;
        }
    }

    /** One row per phase: p50, p90, p99 and the explanation. */
    public String table() {
        MarkdownTable table = new MarkdownTable("phase", "p50 ms", "p90 ms", "p99 ms", "what happens");
        phases.forEach((name, samples) -> {
            if (samples.kept() == 0) {
                return;
            }
            Summary s = samples.summary();
            table.row(name, MarkdownTable.millis(s.p50()), MarkdownTable.millis(s.p90()),
                    MarkdownTable.millis(s.p99()), explanations.get(name));
        });
        return table.render();
    }
}
