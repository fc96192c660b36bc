package dev.baton.work.plan;

import java.util.Arrays;

/** A growable list of ints, so that hot loops over item indexes box nothing. */
final class IntList {

    private int[] values;
    private int size;

    IntList(int capacity) {
        values = new int[Math.max(capacity, 4)];
    }

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int get(int index) {
        return values[index];
    }

    int size() {
        return size;
    }

    /** The backing array; valid up to {@link #size()}. */
    int[] array() {
        return values;
    }

    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
