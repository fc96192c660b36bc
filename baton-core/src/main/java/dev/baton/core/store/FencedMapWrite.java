package dev.baton.core.store;

/**
 * The answer to a fenced map write.
 *
 * @param accepted    whether the write was applied
 * @param currentTerm the newest term the store knows for the group: the write's own term if accepted, else the newer
 *                    term that fenced it out (0 if no term was ever issued), or the write's own term when the store
 *                    ended that term without knowing a newer one (the serverless work store, once the term's leader
 *                    lost its majority)
 * @param existed     whether the key was present before the write (a put that created it, or a remove that found
 *                    nothing, reads false); meaningful only when accepted
 */
public record FencedMapWrite(boolean accepted, long currentTerm, boolean existed) {
}
