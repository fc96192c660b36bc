package dev.baton.redis.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * Parses the timestamps of registry entries. The scripts write one exact form,
 * {@code yyyy-MM-ddTHH:mm:ss.SSSZ}; reading it by hand is several times faster than {@link Instant#parse}, which
 * matters when a listing decodes two timestamps for each of thousands of entries. Any other ISO-8601 form falls back
 * to {@link Instant#parse}.
 */
final class IsoInstants {

    private static final int LENGTH = "2026-01-01T00:00:00.000Z".length();

    private IsoInstants() {}

    /** The instant {@code text} denotes, or {@code null} if it is absent or not ISO-8601. */
    static Instant parse(String text) {
        if (text == null) {
            return null;
        }
        Instant fast = parseMillisForm(text);
        if (fast != null) {
            return fast;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static Instant parseMillisForm(String s) {
        if (s.length() != LENGTH || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T'
                || s.charAt(13) != ':' || s.charAt(16) != ':' || s.charAt(19) != '.' || s.charAt(23) != 'Z') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        int millis = digits(s, 20, 3);
        if (year < 0 || month < 0 || day < 0 || millis < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59) {
            return null;
        }
        try {
            long days = LocalDate.of(year, month, day).toEpochDay();
            return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, millis * 1_000_000L);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The decimal number in {@code s[from, from + count)}, or -1 if a character is not a digit. */
    private static int digits(String s, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
