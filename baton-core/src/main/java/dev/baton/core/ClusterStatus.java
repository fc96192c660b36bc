package dev.baton.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of a group from one node's point of view: the seed's {@code get_cluster_status()}, served by the HTTP
 * API as {@code GET /cluster/status} and summarised by {@code GET /cluster/health}.
 *
 * @param group   the election group
 * @param nodeId  the node that took the snapshot
 * @param state   that node's state
 * @param leader  the leader it knows of, with its term
 * @param members every live member, ordered by id
 * @param problem the latest unresolved failure talking to the backend (e.g. the store is unreachable), if any
 * @param store   how recently the store answered, for a store-backed election; empty for backends without a store
 *                (the peer and bully protocols)
 *
 * <p>A node whose store has been silent for longer than its limit ({@link StoreContact#reachable()} false) cannot
 * vouch for any leader: the snapshot then names none, has a problem saying so, and is not {@link #ready()}.
 */
public record ClusterStatus(String group, String nodeId, NodeState state, Optional<LeaderInfo> leader,
        List<MemberStatus> members, Optional<String> problem, Optional<StoreContact> store) {

    public ClusterStatus {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(leader, "leader");
        members = List.copyOf(members);
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(store, "store");
        if (store.isPresent() && !store.get().reachable()) {
            leader = Optional.empty();
            if (problem.isEmpty()) {
                problem = Optional.of("This node " + store.get().describe());
            }
        }
    }

    /** A snapshot of an election without a store (peer, bully). */
    public ClusterStatus(String group, String nodeId, NodeState state, Optional<LeaderInfo> leader,
            List<MemberStatus> members, Optional<String> problem) {
        this(group, nodeId, state, leader, members, problem, Optional.empty());
    }

    public boolean isLeader() {
        return state == NodeState.LEADER;
    }

    /** The leader's term, or 0 when no leader is known. */
    public long term() {
        return leader.map(LeaderInfo::term).orElse(0L);
    }

    /** Live members, this node included. */
    public int clusterSize() {
        return members.size();
    }

    /** The seed's {@code is_cluster_ready}: a leader is known and the backend answers. */
    public boolean ready() {
        return leader.isPresent() && problem.isEmpty() && state != NodeState.STOPPED;
    }

    /** The leader's registry entry (with its API address), if it is among the members. */
    public Optional<NodeInfo> leaderNode() {
        return leader.flatMap(l -> members.stream().map(MemberStatus::node).filter(n -> n.id().equals(l.nodeId()))
                .findFirst());
    }
}
