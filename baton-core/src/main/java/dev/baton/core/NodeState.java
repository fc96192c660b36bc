package dev.baton.core;

import java.util.Locale;

/** Where this node stands in its group's election (seed 002's node states). */
public enum NodeState {
    /** Knows or waits for another leader; the state before the first round too. */
    FOLLOWER,
    /** Asking the store (or its peers) for leadership right now. */
    CANDIDATE,
    /** Holds a valid leadership. */
    LEADER,
    /** Closed: no longer takes part. */
    STOPPED;

    /** The seed's lower-case name, as shown by the HTTP API: {@code follower}, {@code candidate}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
