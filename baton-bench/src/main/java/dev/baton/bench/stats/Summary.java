package dev.baton.bench.stats;

import java.util.Arrays;

/**
 * The distribution of one series of latency samples: p50, p90, p99, max and mean, in nanoseconds.
 *
 * <p>Percentiles are nearest-rank on the sorted samples (p99 of 200 samples is the 198th smallest), so every value
 * shown is a latency that was really observed.
 *
 * @param count number of samples
 * @param p50   median
 * @param p90   90th percentile
 * @param p99   99th percentile
 * @param max   largest sample
 * @param mean  arithmetic mean
 */
public record Summary(int count, long p50, long p90, long p99, long max, double mean) {

    /** Summarises {@code nanos}; the array is not modified. */
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
                sorted[sorted.length - 1], sum / sorted.length);
    }

    private static long rank(long[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
