package dev.baton.core.store;

/**
 * The answer to {@link LeaderRecordStore#writeLeader}.
 *
 * @param accepted whether the record was stored
 * @param current  the record the store holds after deciding: the written one if accepted, else the newer (or equal
 *                 term, other leader) record that refused it
 */
public record LeaderRecordWrite(boolean accepted, LeaderRecord current) {
}
