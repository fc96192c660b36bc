package dev.baton.bench.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * What the scenarios of one {@code report} run measured, for the summary and the charts: every latency series a
 * scenario showed, with its samples, under the run and the section (the markdown heading) it appeared in, and the
 * plain numbers a scenario chose to state ({@linkplain #fact facts}, such as results sent and received).
 *
 * <p>Scenarios need not know about it: every {@link LatencyReport} a scenario renders while findings are
 * {@linkplain #open() open} adds its rows here. A scenario whose figures are not a {@code LatencyReport} hands them
 * over with {@link #record} and {@link #fact}; with no findings open both do nothing, so a scenario run on its own is
 * unchanged. Thread-safe.
 */
public final class Findings implements AutoCloseable {

    /** One candidate's latencies as a scenario showed them. */
    public record Series(String run, String section, String candidate, Summary summary) {
    }

    private static final AtomicReference<Findings> OPEN = new AtomicReference<>();

    private final List<Series> series = new ArrayList<>();
    private final Map<String, Double> facts = new LinkedHashMap<>();
    private final Set<Summary> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    private String run = "";
    private Supplier<String> section = () -> "";

    private Findings() {
    }

    /**
     * Starts collecting what scenarios show, until {@link #close()}.
     *
     * @throws IllegalStateException if findings are already open
     */
    public static Findings open() {
        Findings findings = new Findings();
        if (!OPEN.compareAndSet(null, findings)) {
            throw new IllegalStateException("findings are already being collected");
        }
        return findings;
    }

    /** What follows belongs to {@code run}, under the section {@code section} names when a series arrives. */
    public synchronized void beginRun(String run, Supplier<String> section) {
        this.run = Objects.requireNonNull(run, "run");
        this.section = Objects.requireNonNull(section, "section");
    }

    /** Adds a series to the open findings, if any (a summary already added is not added twice). */
    public static void record(String candidate, Summary summary) {
        Findings findings = OPEN.get();
        if (findings != null) {
            findings.add(candidate, summary);
        }
    }

    /** States a number of the current run ({@code sent}, {@code received}, ...) in the open findings, if any. */
    public static void fact(String name, double value) {
        Findings findings = OPEN.get();
        if (findings != null) {
            findings.putFact(name, value);
        }
    }

    /** Called by {@link LatencyReport#table()}: each of its rows is a series. */
    static void rendered(LatencyReport report) {
        Findings findings = OPEN.get();
        if (findings != null) {
            report.rowsInOrder().forEach(findings::add);
        }
    }

    private synchronized void add(String candidate, Summary summary) {
        if (seen.add(summary)) {
            series.add(new Series(run, section.get(), candidate, summary));
        }
    }

    private synchronized void putFact(String name, double value) {
        facts.put(run + "/" + name, value);
    }

    /** Every series of {@code run}, in the order they were shown. */
    public synchronized List<Series> series(String run) {
        return series.stream().filter(s -> s.run().equals(run)).toList();
    }

    /** A fact of {@code run}, or null if the run did not state it. */
    public synchronized Double fact(String run, String name) {
        return facts.get(run + "/" + name);
    }

    /** Stops collecting. */
    @Override
    public void close() {
        OPEN.compareAndSet(this, null);
    }
}
