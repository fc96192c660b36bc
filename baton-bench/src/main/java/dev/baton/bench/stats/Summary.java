package dev.baton.bench.stats;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * The distribution of one series of latency samples: p50, p90, p99, max and mean, in nanoseconds.
 *
 * <p>Percentiles are nearest-rank on the sorted samples (p99 of 200 samples is the 198th smallest), so every value
 * shown is a latency that was really observed. A summary made {@linkplain #of from the samples} keeps them (sorted),
 * so that a chart can draw the whole distribution ({@link #quantile}) from the same object a table prints; one made
 * from percentiles another tool computed (wrk's) has only those.
 */
public final class Summary {

    private final int count;
    private final long p50;
    private final long p90;
    private final long p99;
    private final long max;
    private final double mean;
    private final long[] sorted; // null when made from percentiles alone

    /**
     * A summary of percentiles computed elsewhere, without the samples.
     *
     * @param count number of samples
     * @param p50   median
     * @param p90   90th percentile
     * @param p99   99th percentile
     * @param max   largest sample
     * @param mean  arithmetic mean
     */
    public Summary(int count, long p50, long p90, long p99, long max, double mean) {
        this(count, p50, p90, p99, max, mean, null);
    }

    private Summary(int count, long p50, long p90, long p99, long max, double mean, long[] sorted) {
        this.count = count;
        this.p50 = p50;
        this.p90 = p90;
        this.p99 = p99;
        this.max = max;
        this.mean = mean;
        this.sorted = sorted;
    }

    /** Summarises {@code nanos} and keeps a sorted copy of them; the array is not modified. */
    public static Summary of(long[] nanos) {
        if (nanos.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long value : sorted) {
            sum += value;
        }
        return new Summary(sorted.length, rank(sorted, 0.50), rank(sorted, 0.90), rank(sorted, 0.99),
                sorted[sorted.length - 1], sum / sorted.length, sorted);
    }

    private static long rank(long[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Number of samples. */
    public int count() {
        return count;
    }

    /** Median, nanoseconds. */
    public long p50() {
        return p50;
    }

    /** 90th percentile, nanoseconds. */
    public long p90() {
        return p90;
    }

    /** 99th percentile, nanoseconds. */
    public long p99() {
        return p99;
    }

    /** Largest sample, nanoseconds. */
    public long max() {
        return max;
    }

    /** Arithmetic mean, nanoseconds. */
    public double mean() {
        return mean;
    }

    /** Whether the samples themselves are kept ({@link #quantile} works). */
    public boolean hasSamples() {
        return sorted != null;
    }

    /**
     * The nearest-rank {@code q} quantile of the samples (0 the smallest, 1 the largest), nanoseconds.
     *
     * @throws IllegalStateException if this summary was made from percentiles alone
     */
    public long quantile(double q) {
        if (sorted == null) {
            throw new IllegalStateException("this summary keeps no samples");
        }
        if (q <= 0) {
            return sorted[0];
        }
        return rank(sorted, Math.min(1, q));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Summary s && count == s.count && p50 == s.p50 && p90 == s.p90 && p99 == s.p99
                && max == s.max && Double.compare(mean, s.mean) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(count, p50, p90, p99, max, mean);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Summary[count=%d, p50=%d, p90=%d, p99=%d, max=%d, mean=%.1f]", count, p50,
                p90, p99, max, mean);
    }
}
