package dev.baton.postgres.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * Reads a node's {@code metadata} column, PostgreSQL's text output of a {@code jsonb} object, into the map that
 * {@code jsonb_each_text} would give: string values unescaped, {@code null} values left out, and any other value
 * (a number, {@code true}/{@code false}, an array or object) as its JSON text.
 *
 * <p>Why not {@code jsonb_each_text} in the query: aggregating every row's pairs into two arrays on the server cost
 * 80-87 % of listing the registry (about 50 ms of 58 ms at 10,000 nodes); sending the object as text and splitting it
 * here costs a few microseconds a row. The input comes from PostgreSQL, so it is valid JSON; anything else is an
 * {@link IllegalArgumentException}.
 */
final class MetadataJson {

    private final String text;
    private int at;

    private MetadataJson(String text) {
        this.text = text;
    }

    /** The pairs of the JSON object {@code json}; empty for {@code null} (no metadata) or {@code {}}. */
    static Map<String, String> read(String json) {
        if (json == null) {
            return Map.of();
        }
        return new MetadataJson(json).object();
    }

    private Map<String, String> object() {
        Map<String, String> pairs = new HashMap<>();
        skipSpace();
        expect('{');
        skipSpace();
        if (peek() == '}') {
            at++;
            return end(pairs);
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            expect(':');
            skipSpace();
            char first = peek();
            if (first == '"') {
                pairs.put(key, string());
            } else {
                int start = at;
                skipValue();
                String raw = text.substring(start, at);
                if (!raw.equals("null")) {
                    pairs.put(key, raw);
                }
            }
            skipSpace();
            char next = next();
            if (next == '}') {
                return end(pairs);
            }
            if (next != ',') {
                throw bad("',' or '}'");
            }
        }
    }

    private Map<String, String> end(Map<String, String> pairs) {
        skipSpace();
        if (at != text.length()) {
            throw bad("the end");
        }
        return pairs;
    }

    /** A JSON string at the cursor, unescaped. */
    private String string() {
        expect('"');
        StringBuilder out = null;
        int start = at;
        while (true) {
            char c = next();
            if (c == '"') {
                return out == null ? text.substring(start, at - 1) : out.toString();
            }
            if (c != '\\') {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length() - start).append(text, start, at - 1);
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw bad("four hex digits");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw bad("four hex digits");
                    }
                    at += 4;
                }
                default -> throw bad("an escape");
            }
        }
    }

    /** Moves past one non-string value: a scalar, or a nested array or object (strings inside included). */
    private void skipValue() {
        int depth = 0;
        while (at < text.length()) {
            char c = peek();
            if (c == '"') {
                string();
                continue;
            }
            if (depth == 0 && (c == ',' || c == '}')) {
                break;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
            at++;
        }
        if (depth != 0) {
            throw bad("a closed array or object");
        }
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private void expect(char c) {
        if (next() != c) {
            throw bad("'" + c + "'");
        }
    }

    private char peek() {
        if (at >= text.length()) {
            throw bad("more");
        }
        return text.charAt(at);
    }

    private char next() {
        char c = peek();
        at++;
        return c;
    }

    private IllegalArgumentException bad(String expected) {
        return new IllegalArgumentException("metadata is not a JSON object: expected " + expected + " at character "
                + at);
    }
}
