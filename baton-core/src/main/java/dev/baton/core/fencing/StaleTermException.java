package dev.baton.core.fencing;

/** A write carried a term older than one the resource has already seen: it came from a deposed leader. */
public final class StaleTermException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long term;
    private final long currentTerm;

    public StaleTermException(long term, long currentTerm) {
        super("term " + term + " is stale: the resource has seen term " + currentTerm);
        this.term = term;
        this.currentTerm = currentTerm;
    }

    public long term() {
        return term;
    }

    public long currentTerm() {
        return currentTerm;
    }
}
