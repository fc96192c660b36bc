package dev.baton.work.internal.worker;

import java.util.Objects;

/**
 * A command as a worker reads it off the wire: the command and the term of the leader that sent it, Baton's optional
 * top-level {@code leaderTerm} field. A worker refuses a command whose term is older than a newer leader's it has
 * seen ({@link LeaderTermFence}), so a leader that was deposed while its command was on the way cannot start or stop
 * anything behind its successor's back.
 *
 * @param leaderTerm the sender's fencing term ({@code Leadership.term()}), or {@link #NO_TERM} when the command
 *                   carried none (a sender that predates the field, or a tool that is no leader)
 */
public record FencedCommand(WorkerCommand command, long leaderTerm) {

    /** The term of a command that carried none. Terms issued by an election are at least 1. */
    public static final long NO_TERM = 0;

    public FencedCommand {
        Objects.requireNonNull(command, "command");
        if (leaderTerm < NO_TERM) {
            throw new IllegalArgumentException("leaderTerm must be at least 0, was " + leaderTerm);
        }
    }

    /** A command that carries no term. */
    public static FencedCommand unfenced(WorkerCommand command) {
        return new FencedCommand(command, NO_TERM);
    }

    /** Whether the command carried a term. */
    public boolean hasTerm() {
        return leaderTerm != NO_TERM;
    }
}
