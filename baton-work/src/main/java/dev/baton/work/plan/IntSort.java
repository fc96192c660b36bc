package dev.baton.work.plan;

/** A stable merge sort of int arrays under a comparator of ints, without boxing. */
final class IntSort {

    /** Compares two ints (indexes into the caller's arrays). */
    @FunctionalInterface
    interface Comparator {
        int compare(int a, int b);
    }

    private static final int INSERTION_LIMIT = 16;

    private IntSort() {
    }

    /** Sorts {@code a[0..size)} stably. */
    static void sort(int[] a, int size, Comparator comparator) {
        if (size < 2) {
            return;
        }
        int[] buffer = new int[size];
        mergeSort(a, buffer, 0, size, comparator);
    }

    private static void mergeSort(int[] a, int[] buffer, int from, int to, Comparator comparator) {
        if (to - from <= INSERTION_LIMIT) {
            for (int i = from + 1; i < to; i++) {
                int value = a[i];
                int j = i - 1;
                while (j >= from && comparator.compare(a[j], value) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = value;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, buffer, from, mid, comparator);
        mergeSort(a, buffer, mid, to, comparator);
        if (comparator.compare(a[mid - 1], a[mid]) <= 0) {
            return;
        }
        System.arraycopy(a, from, buffer, from, to - from);
        int left = from;
        int right = mid;
        for (int k = from; k < to; k++) {
            if (right >= to || (left < mid && comparator.compare(buffer[left], buffer[right]) <= 0)) {
                a[k] = buffer[left++];
            } else {
                a[k] = buffer[right++];
            }
        }
    }
}
