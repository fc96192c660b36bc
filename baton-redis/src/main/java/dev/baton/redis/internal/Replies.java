package dev.baton.redis.internal;

import dev.baton.core.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads the values in a script's reply. With the store's codec, bulk strings arrive as {@code byte[]}, integers as
 * {@link Long}, nested arrays as {@link List} and nil as {@code null}; anything else means the script and this
 * code disagree, which is reported as a {@link StoreException}.
 */
final class Replies {

    private Replies() {}

    static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof Long || value instanceof String) {
            return value.toString();
        }
        throw unexpected("text", value);
    }

    static long number(Object value) {
        if (value instanceof Long n) {
            return n;
        }
        try {
            return Long.parseLong(text(value));
        } catch (NumberFormatException e) {
            throw unexpected("number", value);
        }
    }

    static List<?> list(Object value) {
        if (value instanceof List<?> list) {
            return list;
        }
        throw unexpected("array", value);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static StoreException unexpected(String expected, Object value) {
        String actual = value == null ? "nil" : value.getClass().getSimpleName();
        return new StoreException("unexpected reply from a Redis script: expected " + expected + ", got " + actual);
    }
}
