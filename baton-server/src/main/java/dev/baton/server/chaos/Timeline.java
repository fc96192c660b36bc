package dev.baton.server.chaos;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the raw monotonic times of a history into times a reader can place: milliseconds from the start of the
 * trial an event belongs to. A trial without a {@code trial} event (the setup) counts from its earliest event.
 */
final class Timeline {

    private final Map<Integer, Long> origins;

    private Timeline(Map<Integer, Long> origins) {
        this.origins = origins;
    }

    /** The timeline of {@code history}'s trials. */
    static Timeline of(History history) {
        Map<Integer, Long> declared = new HashMap<>();
        Map<Integer, Long> earliest = new HashMap<>();
        for (HistoryEvent event : history.events()) {
            if (event instanceof HistoryEvent.Trial trial) {
                declared.put(trial.trial(), trial.start());
            }
            earliest.merge(event.trial(), event.time(), Math::min);
        }
        earliest.putAll(declared);
        return new Timeline(earliest);
    }

    /** {@code mono} as milliseconds from the start of {@code trial}, e.g. {@code +1234.5 ms}. */
    String at(int trial, long mono) {
        long origin = origins.getOrDefault(trial, mono);
        return (mono >= origin ? "+" : "") + millis(mono - origin);
    }

    /** {@code mono} placed in {@code trial}, e.g. {@code trial 3 +1234.5 ms}. */
    String in(int trial, long mono) {
        return "trial " + trial + " " + at(trial, mono);
    }

    /** A duration in nanoseconds as milliseconds with one decimal, e.g. {@code 1234.5 ms}. */
    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1_000_000.0);
    }
}
