package dev.baton.core.store;

import java.time.Duration;
import java.util.Objects;

/**
 * A lease as the store sees it.
 *
 * @param owner     node id of the holder
 * @param term      the term the holder was granted
 * @param remaining time until the lease expires, by the store's clock, as of the store's reply: for a lease bound to
 *                  a session, the session's remaining time
 * @param session   the id of the session the lease is bound to ({@link SessionStore}), or empty for a lease with a
 *                  TTL of its own
 */
public record Lease(String owner, long term, Duration remaining, String session) {

    public Lease {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(remaining, "remaining");
        Objects.requireNonNull(session, "session");
    }

    /** A lease with a TTL of its own, bound to no session. */
    public Lease(String owner, long term, Duration remaining) {
        this(owner, term, remaining, "");
    }

    /** Whether the lease is bound to a session (and lives as long as it). */
    public boolean boundToSession() {
        return !session.isEmpty();
    }
}
