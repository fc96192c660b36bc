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
 * {@code --lease-ttl 3} cannot silently mean 3 ms.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

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
            throw new CommandLine.TypeConversionException("'" + text + "' is negative; a duration must be positive");
        }
        return parsed;
    }

    private static Duration simple(String amount, String unit, String text) {
        long n;
        try {
            n = Long.parseLong(amount);
        } catch (NumberFormatException e) {
            throw invalid(text);
        }
        try {
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } catch (ArithmeticException e) {
            throw invalid(text);
        }
    }

    private static CommandLine.TypeConversionException invalid(String text) {
        return new CommandLine.TypeConversionException(
                "'" + text + "' is not a duration (use e.g. 100ms, 3s, 1m, 2h or ISO-8601 PT3S)");
    }
}
