package dev.baton.work.internal.worker;

import java.util.HashMap;
import java.util.Map;

/**
 * The worker's side of the {@code leaderTerm} rule, for a worker written in Java (and the tests' workers): a command
 * whose term is lower than the highest term seen on a connection that is still open is refused; a command without a
 * term is carried out, as the original protocol has none.
 *
 * <p>Why only terms of open connections count: a store that lost its terms (the in-memory store of a process that
 * restarted; an etcd restored from an older snapshot) may start again below the terms a long-running worker has seen,
 * and a worker that remembered them for good would refuse every later leader. The leader of a newer term keeps its
 * connection open while it leads, so its term fences its predecessors for exactly as long as it matters; once it is
 * gone, so is its term. {@code C} is whatever identifies a connection (compared by {@code equals}). Thread-safe.
 */
public final class LeaderTermFence<C> {

    /** What became of a command. */
    public enum Verdict {
        /** No term on it: carried out, as the original protocol wants. */
        NO_TERM,
        /** Its term is the highest on an open connection, or higher: carried out. */
        CURRENT,
        /** Its term is lower than one a newer leader sent on a connection still open: refused. */
        STALE
    }

    private final Map<C, Long> termByConnection = new HashMap<>();

    /** Judges a command of {@code leaderTerm} ({@link FencedCommand#NO_TERM} if none) that arrived on {@code connection}. */
    public synchronized Verdict admit(C connection, long leaderTerm) {
        if (leaderTerm == FencedCommand.NO_TERM) {
            return Verdict.NO_TERM;
        }
        if (leaderTerm < newestTerm()) {
            return Verdict.STALE;
        }
        termByConnection.merge(connection, leaderTerm, Math::max);
        return Verdict.CURRENT;
    }

    /** Judges {@code command}, which arrived on {@code connection}. */
    public Verdict admit(C connection, FencedCommand command) {
        return admit(connection, command.leaderTerm());
    }

    /** The connection closed: the terms it brought no longer fence anything. */
    public synchronized void closed(C connection) {
        termByConnection.remove(connection);
    }

    /** Forgets every term, as a worker process that restarted. */
    public synchronized void clear() {
        termByConnection.clear();
    }

    /** The highest term seen on a connection still open; {@link FencedCommand#NO_TERM} if none. */
    public synchronized long newestTerm() {
        long newest = FencedCommand.NO_TERM;
        for (long term : termByConnection.values()) {
            newest = Math.max(newest, term);
        }
        return newest;
    }
}
