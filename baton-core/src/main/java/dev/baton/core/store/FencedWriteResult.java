package dev.baton.core.store;

/**
 * The answer to a fenced write.
 *
 * @param accepted    whether the write was stored
 * @param currentTerm the newest term the store knows for the group when it decided: the write's own term if
 *                    accepted, else the newer term that fenced it out
 */
public record FencedWriteResult(boolean accepted, long currentTerm) {
}
