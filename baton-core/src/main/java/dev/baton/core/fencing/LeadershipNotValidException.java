package dev.baton.core.fencing;

import dev.baton.core.Leadership;

/**
 * A fence was handed a {@link Leadership} that is no longer {@linkplain Leadership#isValid() valid}: its local
 * deadline passed (the process may have been paused, or the lease could not be renewed) or its election has lost the
 * term. The fence refused to write on its behalf, and nothing was written. Treat it like a
 * {@link StaleTermException}: stop acting as leader under this term.
 *
 * <p>The validity check runs before the write (and, where a transaction is involved, again right before its commit);
 * a pause after the last check is what the term check in the resource catches.
 */
public final class LeadershipNotValidException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long term;

    /** Refuses a write of the leadership of {@code term}. */
    public LeadershipNotValidException(long term) {
        super("leadership of term " + term + " is no longer valid (its local deadline passed or it was lost); "
                + "not writing");
        this.term = term;
    }

    /** The term of the refused leadership. */
    public long term() {
        return term;
    }
}
