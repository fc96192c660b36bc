package dev.baton.server;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a duration flag the way people type them: {@code 100ms}, {@code 3s}, {@code 1m}, {@code 2h}, or ISO-8601 such
 * as {@code PT3S} for whoever copies values out of configuration. A bare number is refused rather than guessed at, so
 * {@code --lease-ttl 3} cannot silently mean 3 ms. Every duration flag takes 0 to {@link #MAX} (7 days): longer
 * values mean nothing for a lease, an interval or a timeout, and would overflow later arithmetic (nanoseconds).
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    /** The longest duration any flag accepts. */
    public static final Duration MAX = Duration.ofDays(7);

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * Parses {@code text}.
     *
     * @throws CommandLine.TypeConversionException with a message that shows the accepted forms
     */
    public static Duration parse(String text) {
        String value = text == null ? "" : text.strip();
        Matcher simple = SIMPLE.matcher(value.toLowerCase(Locale.ROOT));
        Duration parsed;
        if (simple.matches()) {
            parsed = simple(simple.group(1), simple.group(2), text);
        } else if (value.toUpperCase(Locale.ROOT).startsWith("P")) {
            try {
                parsed = Duration.parse(value);
            } catch (DateTimeParseException e) {
                throw invalid(text);
            }
        } else {
            throw invalid(text);
        }
        if (parsed.isNegative()) {
            throw outOfRange(text);
        }
        if (parsed.compareTo(MAX) > 0) {
            throw outOfRange(text);
        }
        return parsed;
    }

    private static Duration simple(String amount, String unit, String text) {
        long n;
        try {
            n = Long.parseLong(amount);
        } catch (NumberFormatException e) {
            throw outOfRange(text); // only digits, so too many of them
        }
        try {
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } catch (ArithmeticException e) {
            throw outOfRange(text);
        }
    }

    private static CommandLine.TypeConversionException outOfRange(String text) {
        return new CommandLine.TypeConversionException("'" + text + "' is out of range: a duration must be from 0 to "
                + "168h (7 days)");
    }

    private static CommandLine.TypeConversionException invalid(String text) {
        return new CommandLine.TypeConversionException(
                "'" + text + "' is not a duration (use e.g. 100ms, 3s, 1m, 2h or ISO-8601 PT3S)");
    }
}
