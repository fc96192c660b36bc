package dev.baton.bench.handover;

import java.util.Random;

/** How long a leader holds before releasing, per the method: a random 50-550 ms, or not at all. */
public enum Pass {

    /** The leader holds a uniformly random 50-550 ms, then releases. */
    HELD("held 50-550 ms"),
    /** The leader releases as soon as it is granted (and the pool of three is restored). */
    IMMEDIATE("released at once");

    private final String label;

    Pass(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The hold time in milliseconds for the next handover. */
    long holdMillis(Random random) {
        return this == HELD ? 50 + random.nextInt(501) : 0;
    }
}
