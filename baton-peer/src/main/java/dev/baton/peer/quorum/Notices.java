package dev.baton.peer.quorum;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import dev.baton.peer.internal.NodeOutput;
import java.util.concurrent.CompletableFuture;

/**
 * What the node tells the application (its events and the snapshot other threads read), passed through the {@link
 * Effects} driver: a notice never reaches the application before the saves asked for ahead of it are durable, so a
 * leader is never told it leads a term that a crash could let it lead again. A leadership is told only if those saves
 * succeeded and it was not withdrawn meanwhile, and its loss only if it was told. Confined to the node's scheduler.
 */
final class Notices {

    private final NodeOutput output;
    private final Effects effects;
    // The newest term withdrawn (lost), and the newest whose acquisition the application was told.
    private long withdrawn;
    private long announced;

    Notices(NodeOutput output, Effects effects) {
        this.output = output;
        this.effects = effects;
    }

    NodeOutput output() {
        return output;
    }

    void snapshot(NodeState state, String problem) {
        effects.tell(() -> output.snapshot(state, problem));
    }

    void roundStarted() {
        effects.tell(output::roundStarted);
    }

    void roundCompleted(boolean leading) {
        effects.tell(() -> output.roundCompleted(leading));
    }

    void leaderChanged(LeaderInfo info) {
        effects.tell(() -> output.leaderChanged(info));
    }

    /**
     * Publishes and tells the leadership once the saves before it are durable; never if one of them failed (the term
     * may not be recorded as led), nor if the leadership was lost meanwhile (it would be valid again for a moment).
     */
    void acquired(Leadership held) {
        effects.afterDurable(() -> {
            if (held.term() > withdrawn) {
                announced = held.term();
                output.acquired(held);
            }
        });
    }

    /**
     * Unpublishes the leadership at once (withdrawing a claim needs nothing on disk), then tells the loss in order,
     * if the leadership was valid and told. Completes once the loss has been told and every listener has returned.
     */
    CompletableFuture<Void> lost(long term, LossReason reason, boolean wasValid) {
        withdrawn = Math.max(withdrawn, term);
        output.lost(term, reason, false);
        CompletableFuture<Void> delivered = new CompletableFuture<>();
        effects.tell(() -> output.lost(term, reason, wasValid && announced == term).whenComplete(
                (ignored, error) -> delivered.complete(null)));
        return delivered;
    }

    void memberJoined(NodeInfo member) {
        effects.tell(() -> output.memberJoined(member));
    }

    void memberStateChanged(NodeInfo member, MemberState from, MemberState to) {
        effects.tell(() -> output.memberStateChanged(member, from, to));
    }

    void memberRemoved(String nodeId) {
        effects.tell(() -> output.memberRemoved(nodeId));
    }

    void error(String message, Throwable cause) {
        effects.tell(() -> output.error(message, cause));
    }

    void closed(String group) {
        effects.tell(() -> output.closed(group));
    }
}
