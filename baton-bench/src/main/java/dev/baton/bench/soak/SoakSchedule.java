package dev.baton.bench.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The soak's timeline: quiet stretches with one flood in the middle of each slot, the three kinds in turn. A run of
 * {@code d} has {@code max(3, d / 3 min)} slots of equal length; a flood lasts {@code min(30 s, slot / 2)} and sits in
 * the middle of its slot, so every flood has quiet time before and after it. 30 minutes: ten 3-minute slots with a
 * 30 s flood each (four worker floods, three of each other kind); 2 minutes: three 40 s slots with a 20 s flood each,
 * one of each kind.
 */
final class SoakSchedule {

    /** What a phase does to the clusters. */
    enum Kind {
        QUIET("quiet", "steady load only"),
        WORKER_FLOOD("flood a: worker", "one worker floods the leader with messages"),
        SLOW_HTTP("flood b: slow HTTP", "slow HTTP clients dribble PUT bodies at the Redis cluster's leader"),
        PARTIAL_FRAMES("flood c: peer frames",
                "raw TCP connections announce a 1 MiB frame to the peer cluster's leader, hold back its last byte");

        private final String label;
        private final String description;

        Kind(String label, String description) {
            this.label = label;
            this.description = description;
        }

        String label() {
            return label;
        }

        String description() {
            return description;
        }

        boolean isFlood() {
            return this != QUIET;
        }
    }

    /** One stretch of the timeline, as offsets from the start of the measurement. */
    record Phase(int index, Kind kind, Duration from, Duration to) {
        Duration length() {
            return to.minus(from);
        }
    }

    private static final Duration SLOT = Duration.ofMinutes(3);
    private static final Duration MAX_FLOOD = Duration.ofSeconds(30);
    private static final Kind[] FLOODS = {Kind.WORKER_FLOOD, Kind.SLOW_HTTP, Kind.PARTIAL_FRAMES};

    private SoakSchedule() {
    }

    /** The phases of a run of {@code total}, back to back from 0 to {@code total}. */
    static List<Phase> of(Duration total) {
        if (total.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new IllegalArgumentException("the soak needs at least 1 minute, was " + total.toSeconds() + " s");
        }
        int slots = (int) Math.max(3, total.toSeconds() / SLOT.toSeconds());
        Duration slot = total.dividedBy(slots);
        Duration flood = slot.dividedBy(2).compareTo(MAX_FLOOD) < 0 ? slot.dividedBy(2) : MAX_FLOOD;
        List<Phase> phases = new ArrayList<>();
        Duration at = Duration.ZERO;
        for (int i = 0; i < slots; i++) {
            Duration floodStart = slot.multipliedBy(i).plus(slot.minus(flood).dividedBy(2));
            phases.add(new Phase(phases.size() + 1, Kind.QUIET, at, floodStart));
            at = floodStart.plus(flood);
            phases.add(new Phase(phases.size() + 1, FLOODS[i % FLOODS.length], floodStart, at));
        }
        phases.add(new Phase(phases.size() + 1, Kind.QUIET, at, total));
        return List.copyOf(phases);
    }
}
