package dev.baton.core.store;

import java.util.Arrays;

/**
 * The content of a fenced register.
 *
 * @param term   the term of the write that produced it
 * @param writer the node id that wrote it
 * @param value  the bytes written
 */
public record FencedValue(long term, String writer, byte[] value) {

    @Override
    public boolean equals(Object o) {
        return o instanceof FencedValue other && term == other.term && writer.equals(other.writer)
                && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(term) + writer.hashCode()) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "FencedValue{term=" + term + ", writer=" + writer + ", bytes=" + value.length + "}";
    }
}
