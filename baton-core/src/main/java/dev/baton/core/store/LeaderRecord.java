package dev.baton.core.store;

import java.util.Objects;

/**
 * The one persisted leader record of a group: seed 004's {@code GMLeader}, with the term that orders leaderships.
 *
 * <p>A serverless election that keeps its leader in a key-value store (the bully protocol) writes this record when a
 * node becomes leader, and a joining node reads it to find whom to ask. The {@code term} is the fencing token of that
 * leadership: every new leadership writes a larger term, so two leaders after a partition are ordered and the older
 * one can be refused.
 *
 * @param group     the group (cluster name) the record belongs to
 * @param term      the leadership's term, at least 1; never goes down for a group
 * @param leaderId  the leader's node id
 * @param processId the process id the leader holds in the group (seed 004's PID; the bully order)
 * @param address   where the leader accepts peer connections, {@code host:port}
 */
public record LeaderRecord(String group, long term, String leaderId, long processId, String address) {

    public LeaderRecord {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(leaderId, "leaderId");
        Objects.requireNonNull(address, "address");
        if (group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank");
        }
        if (term < 1) {
            throw new IllegalArgumentException("term must be at least 1, was " + term);
        }
        if (processId < 1) {
            throw new IllegalArgumentException("processId must be at least 1, was " + processId);
        }
    }
}
