package dev.baton.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How recently a store-backed election heard from its store: the time since the last successful reply to any of its
 * store calls (an acquire attempt, a renewal, a heartbeat, a membership read), on the monotonic clock. Before the first
 * reply it counts from the election's start.
 *
 * <p>A node that has not heard from its store for longer than {@link #limit()} cannot vouch for the leader it last
 * saw: that leader's lease may have expired, and it may have demoted itself, without this node being told. The limit
 * is {@link ElectionConfig#storeContactLimit()}.
 *
 * @param silence how long ago the store last answered (or the election started, if it never has)
 * @param limit   the silence after which the store counts as unreachable
 */
public record StoreContact(Duration silence, Duration limit) {

    public StoreContact {
        Objects.requireNonNull(silence, "silence");
        Objects.requireNonNull(limit, "limit");
    }

    /** False once the store has been silent for longer than the limit. */
    public boolean reachable() {
        return silence.compareTo(limit) <= 0;
    }

    /** One line for people, e.g. {@code "has not heard from the store for 7.2 s, longer than its limit of 5 s"}. */
    public String describe() {
        return "has not heard from the store for " + seconds(silence) + " s, longer than its limit of "
                + seconds(limit) + " s";
    }

    /** A duration in seconds with at most one decimal, as people read it. */
    public static String seconds(Duration duration) {
        long tenths = duration.toMillis() / 100;
        return tenths % 10 == 0 ? Long.toString(tenths / 10) : (tenths / 10) + "." + (tenths % 10);
    }
}
