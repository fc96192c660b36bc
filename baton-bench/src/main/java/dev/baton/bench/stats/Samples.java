package dev.baton.bench.stats;

import java.util.Arrays;

/**
 * Collects latency samples of one series, dropping the first {@code warmup} of them (JIT compilation, connection
 * set-up and first-time class loading would otherwise dominate the tail).
 */
public final class Samples {

    private final int warmup;
    private long[] values;
    private int seen;
    private int kept;

    public Samples(int warmup, int expected) {
        if (warmup < 0 || expected < 0) {
            throw new IllegalArgumentException("warmup and expected must not be negative");
        }
        this.warmup = warmup;
        this.values = new long[Math.max(16, expected)];
    }

    /** Records one sample in nanoseconds; the first {@code warmup} calls are counted but not kept. */
    public void add(long nanos) {
        seen++;
        if (seen <= warmup) {
            return;
        }
        if (kept == values.length) {
            values = Arrays.copyOf(values, kept * 2);
        }
        values[kept++] = nanos;
    }

    /** How many samples were kept (warm-up excluded). */
    public int kept() {
        return kept;
    }

    /** How many samples were recorded in all, warm-up included. */
    public int seen() {
        return seen;
    }

    /** The kept samples, in recording order. */
    public long[] values() {
        return Arrays.copyOf(values, kept);
    }

    public Summary summary() {
        return Summary.of(values());
    }
}
