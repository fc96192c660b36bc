package dev.baton.core;

/**
 * Who leads a group, and under which term.
 *
 * @param nodeId the leader's node id
 * @param term   the leader's term: the fencing token of its leadership
 */
public record LeaderInfo(String nodeId, long term) {
}
