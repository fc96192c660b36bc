package dev.baton.peer.internal;

import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.time.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@link Membership} of a serverless group: the members are the nodes that run the protocol, as the node's member
 * table has them. Registration is the protocol's own (a node joins by running it, leaves by closing or falling
 * silent), so this is a {@link Membership} only, not a {@code Registry}. Reads hop to the protocol's scheduler and
 * complete there.
 */
public final class PeerMembership implements Membership {

    /** What the protocol's state machine provides. */
    public interface Source {

        /** This node's own entry; safe from any thread. */
        NodeInfo self();

        /** The members in the node's table, ordered by id; called on the scheduler. */
        List<NodeInfo> members();

        /** Replaces this node's metadata and tells the group; called on the scheduler. */
        void updateMetadata(Map<String, String> metadata);
    }

    private final Source source;
    private final Scheduler scheduler;
    public PeerMembership(Source source, Scheduler scheduler) {
        this.source = source;
        this.scheduler = scheduler;
    }

    @Override
    public NodeInfo self() {
        return source.self();
    }

    @Override
    public CompletableFuture<Void> setMetadata(Map<String, String> metadata) {
        return onScheduler(() -> {
            source.updateMetadata(metadata);
            return null;
        });
    }

    @Override
    public CompletableFuture<List<NodeInfo>> members() {
        return onScheduler(source::members);
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> member(String nodeId) {
        return members().thenApply(all -> all.stream().filter(n -> n.id().equals(nodeId)).findFirst());
    }

    @Override
    public CompletableFuture<Optional<NodeInfo>> leaderInfo() {
        return members().thenApply(all -> all.stream().filter(n -> n.role() == Role.LEADER).findFirst());
    }

    private <T> CompletableFuture<T> onScheduler(Supplier<T> read) {
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
