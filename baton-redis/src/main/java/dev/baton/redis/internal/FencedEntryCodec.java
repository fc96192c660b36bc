package dev.baton.redis.internal;

import dev.baton.core.store.FencedValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The stored form of one fenced map entry: one hash field value holding the term, the writer and the opaque value
 * bytes, so a put is a single {@code HSET} and a read a single {@code HGET}.
 *
 * <pre>{@code <term>:<writer length in UTF-8 bytes>:<writer><value bytes>}</pre>
 *
 * <p>For example term 1767225600000001, writer {@code a}, value {@code on} is {@code 1767225600000001:1:aon}. The
 * writer's length, not a separator, ends it, so writers and values may contain any bytes.
 */
public final class FencedEntryCodec {

    private static final byte SEPARATOR = ':';

    private FencedEntryCodec() {}

    /** The stored bytes of an entry written under {@code term} by {@code writer}. */
    public static byte[] encode(long term, String writer, byte[] value) {
        byte[] writerBytes = writer.getBytes(StandardCharsets.UTF_8);
        byte[] header = (term + ":" + writerBytes.length + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] encoded = Arrays.copyOf(header, header.length + writerBytes.length + value.length);
        System.arraycopy(writerBytes, 0, encoded, header.length, writerBytes.length);
        System.arraycopy(value, 0, encoded, header.length + writerBytes.length, value.length);
        return encoded;
    }

    /**
     * Reads stored bytes back.
     *
     * @throws IllegalArgumentException if {@code stored} is not in the form above
     */
    public static FencedValue decode(byte[] stored) {
        int termEnd = indexOf(stored, 0);
        int lengthEnd = indexOf(stored, termEnd + 1);
        long term = parse(stored, 0, termEnd, "term");
        long writerLength = parse(stored, termEnd + 1, lengthEnd, "writer length");
        int writerStart = lengthEnd + 1;
        if (writerLength > stored.length - writerStart) {
            throw new IllegalArgumentException("fenced entry is shorter than its writer length " + writerLength);
        }
        int valueStart = writerStart + (int) writerLength;
        String writer = new String(stored, writerStart, (int) writerLength, StandardCharsets.UTF_8);
        return new FencedValue(term, writer, Arrays.copyOfRange(stored, valueStart, stored.length));
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == SEPARATOR) {
                return i;
            }
        }
        throw new IllegalArgumentException("fenced entry lacks its term:length: header");
    }

    private static long parse(byte[] bytes, int from, int to, String field) {
        String digits = new String(bytes, from, to - from, StandardCharsets.US_ASCII);
        try {
            long n = Long.parseLong(digits);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fenced entry has an invalid " + field + ": " + digits);
        }
    }
}
