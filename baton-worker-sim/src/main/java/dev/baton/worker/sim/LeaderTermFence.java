package dev.baton.worker.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/**
 * The worker's rule for Baton's {@code leaderTerm} on commands: a command whose term is lower than the highest term
 * seen on a backend connection that is still open comes from a deposed leader and is refused; a command without a
 * term is carried out (the original protocol has none). The terms a connection brought are forgotten when it closes,
 * so a leader whose store forgot its terms (one that restarted on the in-memory store) is heard once the leader of the
 * higher term is gone. The same rule as baton-work's worker side, which this module cannot depend on. Thread-safe.
 */
final class LeaderTermFence {

    /** The term of a command that carried none. */
    static final long NO_TERM = 0;
    /** The term of a command whose {@code leaderTerm} is not a positive integer: refused, as a worker cannot judge it. */
    static final long UNREADABLE = -1;

    private final Map<Object, Long> termByConnection = new HashMap<>();

    /** The command's {@code leaderTerm}: {@link #NO_TERM} if absent or null, {@link #UNREADABLE} if not a term. */
    static long termOf(JsonNode command) {
        JsonNode term = command.path("leaderTerm");
        if (term.isMissingNode() || term.isNull()) {
            return NO_TERM;
        }
        boolean integral = term.isIntegralNumber()
                || (term.isNumber() && term.doubleValue() == Math.rint(term.doubleValue()));
        return integral && term.canConvertToLong() && term.longValue() >= 1 ? term.longValue() : UNREADABLE;
    }

    /** Whether to carry out a command of {@code term} that came on {@code connection}; a carried-out term is kept. */
    synchronized boolean admit(Object connection, long term) {
        if (term == NO_TERM) {
            return true;
        }
        if (term == UNREADABLE || term < newestTerm()) {
            return false;
        }
        termByConnection.merge(connection, term, Math::max);
        return true;
    }

    /** The connection closed: its terms fence nothing any more. */
    synchronized void closed(Object connection) {
        termByConnection.remove(connection);
    }

    /** Forgets every term, as a process that died. */
    synchronized void clear() {
        termByConnection.clear();
    }

    /** The highest term seen on a connection still open; {@link #NO_TERM} if none. */
    synchronized long newestTerm() {
        long newest = NO_TERM;
        for (long term : termByConnection.values()) {
            newest = Math.max(newest, term);
        }
        return newest;
    }
}
