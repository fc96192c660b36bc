package dev.baton.peer.quorum;

import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.transport.PeerAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link Membership} of a quorum cluster: the members are the nodes that run the protocol, as the leader's table has
 * them (on the leader its own table, on a follower the copy its leader broadcast). A node's id is its peer address
 * ({@code host:port}); the role is {@link Role#LEADER} for the leader this node follows.
 *
 * <p>Registration is the protocol's own: a node joins by running a {@link QuorumElection} and keeps its entry alive
 * with the protocol's keep-alives, so {@link #register} and {@link #unregister} of other processes are not supported
 * (they fail with {@link UnsupportedOperationException}); leave with {@code close()}. Reads hop to the election's
 * scheduler and complete there.
 */
final class QuorumMembership implements Membership {

    private final QuorumNode node;
    private final Scheduler scheduler;

    QuorumMembership(QuorumNode node, Scheduler scheduler) {
        this.node = node;
        this.scheduler = scheduler;
    }

    /** The core view of a member entry; {@code leader} gets the leader role. */
    static NodeInfo nodeInfo(MemberEntry entry, PeerAddress leader) {
        MemberCard card = entry.card();
        return new NodeInfo(entry.address().format(), card.identifier(), card.apiAddress(),
                entry.address().equals(leader) ? Role.LEADER : Role.FOLLOWER, card.capabilities(), card.metadata(),
                entry.joinedAtMillis() == 0 ? null : Instant.ofEpochMilli(entry.joinedAtMillis()),
                entry.lastSeenMillis() == 0 ? null : Instant.ofEpochMilli(entry.lastSeenMillis()));
    }

    @Override
    public NodeInfo self() {
        MemberCard card = node.card();
        Role role = node.output().leadership() != null ? Role.LEADER : Role.FOLLOWER;
        return new NodeInfo(node.self().format(), card.identifier(), card.apiAddress(), role, card.capabilities(),
                card.metadata(), null, null);
    }

    @Override
    public CompletableFuture<Void> setMetadata(Map<String, String> metadata) {
        return onScheduler(() -> {
            MemberCard card = node.card();
            node.updateCard(new MemberCard(card.identifier(), card.apiAddress(), card.capabilities(), metadata));
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> register(NodeInfo other) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("the quorum backend's members are"
                + " the nodes that run the protocol: a process joins by running a QuorumElection, not by registration"));
    }

    /** True if {@code nodeId} is a live member in this node's view. Entries are kept alive by the protocol itself. */
    @Override
    public CompletableFuture<Boolean> heartbeat(String nodeId) {
        return onScheduler(() -> node.members().stream().anyMatch(e -> e.address().format().equals(nodeId)));
    }

    @Override
    public CompletableFuture<Boolean> unregister(String nodeId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("the quorum backend removes a member"
                + " when it leaves (close()) or stays silent for ttlTimeout; it cannot remove another node"));
    }

    @Override
    public CompletableFuture<List<NodeInfo>> members() {
        return onScheduler(() -> {
            PeerAddress leader = node.currentLeader();
            List<NodeInfo> result = new ArrayList<>();
            for (MemberEntry entry : node.members()) {
                result.add(nodeInfo(entry, leader));
            }
            return result;
        });
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String nodeId) {
        return members().thenApply(all -> all.stream().filter(n -> n.id().equals(nodeId)).findFirst());
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo() {
        return members().thenApply(all -> all.stream().filter(n -> n.role() == Role.LEADER).findFirst());
    }

    private <T> CompletableFuture<T> onScheduler(java.util.function.Supplier<T> read) {
        CompletableFuture<T> result = new CompletableFuture<>();
        scheduler.execute(() -> {
            try {
                result.complete(read.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
