package dev.baton.work.plan;

import java.util.Arrays;

/**
 * The canonical order of item ids: by {@link String#hashCode()} (a value the Java Language Specification fixes, so it
 * is the same in every JVM), then by the id itself. Sorting a million strings by {@code compareTo} costs hundreds of
 * milliseconds; a two-pass radix sort of their hash codes costs a few, and only ids with equal hash codes are ever
 * compared. The order is an internal detail: it only has to be the same whatever order the caller lists items in.
 *
 * <p>The radix sort's two passes over 65,536 buckets cost the same for five items as for a million, and the work
 * cluster plans small inputs often (every round, and the worker -> process assignment); below
 * {@link #RADIX_THRESHOLD} items the hash codes are sorted as {@code long}s packed with their index instead, which
 * gives the same order.
 */
final class ItemOrder {

    private static final int RADIX_BITS = 16;
    private static final int BUCKETS = 1 << RADIX_BITS;
    static final int RADIX_THRESHOLD = 4096;

    private ItemOrder() {
    }

    /** The hash code, with the sign bit flipped so that unsigned order is signed int order. */
    static int key(String id) {
        return id.hashCode() ^ Integer.MIN_VALUE;
    }

    /** Compares two ids in the canonical order. */
    static int compare(String a, String b) {
        int byHash = Integer.compare(key(a), key(b));
        return byHash != 0 ? byHash : a.compareTo(b);
    }

    /**
     * The indexes of {@code ids} in canonical order. Equal ids end up next to each other, in their original order.
     */
    static int[] sort(String[] ids) {
        int n = ids.length;
        int[] keys = new int[n];
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key(ids[i]);
            order[i] = i;
        }
        if (n > 1) {
            if (n < RADIX_THRESHOLD) {
                packedSort(keys, order);
            } else {
                radixSort(keys, order);
            }
            sortRunsOfEqualHash(ids, keys, order);
        }
        return order;
    }

    /**
     * Sorts {@code keys} (as signed ints) carrying {@code values} (the indexes 0..n-1, in order) along, stably: each
     * key and its index packed in one {@code long}, so equal keys keep their index order, as in the radix sort.
     */
    private static void packedSort(int[] keys, int[] values) {
        int n = keys.length;
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            packed[i] = ((long) keys[i] << 32) | values[i];
        }
        Arrays.sort(packed);
        for (int i = 0; i < n; i++) {
            keys[i] = (int) (packed[i] >> 32);
            values[i] = (int) packed[i];
        }
    }

    /** Stable LSD radix sort of {@code keys} (as signed ints), carrying {@code values} along. */
    private static void radixSort(int[] keys, int[] values) {
        int n = keys.length;
        int[] keysTmp = new int[n];
        int[] valuesTmp = new int[n];
        int[] counts = new int[BUCKETS + 1];
        for (int shift = 0; shift < 32; shift += RADIX_BITS) {
            Arrays.fill(counts, 0);
            for (int i = 0; i < n; i++) {
                counts[bucket(keys[i], shift) + 1]++;
            }
            for (int b = 0; b < BUCKETS; b++) {
                counts[b + 1] += counts[b];
            }
            for (int i = 0; i < n; i++) {
                int to = counts[bucket(keys[i], shift)]++;
                keysTmp[to] = keys[i];
                valuesTmp[to] = values[i];
            }
            System.arraycopy(keysTmp, 0, keys, 0, n);
            System.arraycopy(valuesTmp, 0, values, 0, n);
        }
    }

    private static int bucket(int key, int shift) {
        // The top digit is flipped back so that negative keys sort first.
        int digit = (key >>> shift) & (BUCKETS - 1);
        return shift + RADIX_BITS == 32 ? digit ^ (BUCKETS >>> 1) : digit;
    }

    private static void sortRunsOfEqualHash(String[] ids, int[] keys, int[] order) {
        int n = keys.length;
        int start = 0;
        while (start < n) {
            int end = start + 1;
            while (end < n && keys[end] == keys[start]) {
                end++;
            }
            if (end - start > 1) {
                // Insertion sort: runs of equal hash codes are short, and it keeps equal ids in their input order.
                for (int i = start + 1; i < end; i++) {
                    int value = order[i];
                    int j = i - 1;
                    while (j >= start && ids[order[j]].compareTo(ids[value]) > 0) {
                        order[j + 1] = order[j];
                        j--;
                    }
                    order[j + 1] = value;
                }
            }
            start = end;
        }
    }
}
