package dev.baton.server.chaos;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a trial places its faults, beyond which fault it draws: whether it may add a second fault that overlaps the
 * first ({@code --multi-fault}), and whether it waits for a hand-over before it injects ({@code --aim}). Both default
 * to off, and off they draw nothing: a seed replays the trials it replayed before they existed.
 *
 * @param multiFault the probability (0 to 1) that a trial adds a second fault (see {@link SecondFault})
 * @param aim        the moment a trial's fault is aimed at
 */
record TrialShape(double multiFault, Aim aim) {

    TrialShape {
        if (!(multiFault >= 0 && multiFault <= 1)) {
            throw new IllegalArgumentException("--multi-fault: expected a probability from 0 to 1, got " + multiFault);
        }
        if (aim == null) {
            throw new IllegalArgumentException("--aim: missing");
        }
    }

    /** One fault per trial, injected as soon as a leader is steady: what a trial did before these options. */
    static TrialShape single() {
        return new TrialShape(0, Aim.NONE);
    }

    boolean isSingle() {
        return equals(single());
    }

    /** The moment a trial's fault is aimed at. */
    enum Aim {
        /** Injected as soon as a leader is steady. */
        NONE,
        /**
         * Injected once a hand-over is under way: the harness has the leader release its lease and waits until the
         * leader's own history line says it let go, so the fault meets the followers' acquires in flight and the gap
         * before the next leader, where the races of a hand-over live.
         */
        HANDOVER;

        /** The name on the command line. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The aim named {@code name}.
         *
         * @throws IllegalArgumentException naming the unknown aim and the known ones
         */
        static Aim of(String name) {
            for (Aim aim : values()) {
                if (aim.label().equals(name)) {
                    return aim;
                }
            }
            throw new IllegalArgumentException("--aim: expected one of " + Arrays.stream(values()).map(Aim::label)
                    .collect(Collectors.joining(", ")) + ", got '" + name + "'");
        }
    }
}
