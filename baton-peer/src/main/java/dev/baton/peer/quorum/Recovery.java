package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.BarrierUpdate;
import dev.baton.peer.quorum.QuorumMessage.RecoveryQuery;
import dev.baton.peer.quorum.QuorumMessage.RecoveryResponse;
import dev.baton.peer.transport.PeerAddress;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The recovery of a node that started without saved state (its first start, or a lost disk: it cannot tell which),
 * before it may vote.
 *
 * <p>Such a node may have voted before it lost its state, in any instance up to one above the newest decided version.
 * It asks N - M + 1 other nodes for the highest version they have seen; any M nodes that accepted a decided version
 * intersect every such set, so the answer H is at least that version, and the node refuses to vote in any instance up
 * to H + 1 (its barrier). Before it says so to anyone, it has M - 1 other nodes save "versions up to H + 1 are used",
 * so that a proposer starting an instance at the barrier's floor starts one whose predecessor a majority knows: the
 * same property every other instance has, which is what the next recovering node relies on. See
 * {@code docs/quorum.md} for the argument and its assumption (state is lost one node at a time).
 */
final class Recovery {

    /** The node recovering: whether it still is, and what to do with the barrier once a majority holds it. */
    interface Host {

        boolean recovering();

        void recovered(long barrier);
    }

    private final NodeContext ctx;
    private final Host host;
    private final long queryId;
    private final Map<PeerAddress, Long> answers = new TreeMap<>();
    private final Set<PeerAddress> known = new TreeSet<>();
    private final Set<PeerAddress> acks = new TreeSet<>();
    private long barrier = -1;

    Recovery(NodeContext ctx, Host host, long queryId) {
        this.ctx = ctx;
        this.host = host;
        this.queryId = queryId;
    }

    private int answersNeeded() {
        return ctx.config().clusterSize() - ctx.config().majority() + 1;
    }

    private int acksNeeded() {
        return ctx.config().majority() - 1;
    }

    /** Runs rounds every retryInterval until the node has recovered (or stopped recovering). */
    void start() {
        if (!host.recovering()) {
            return;
        }
        round();
        ctx.scheduler().schedule(ctx.config().retryInterval(), this::start);
    }

    /** One round: ask everyone known, or (once the barrier is chosen) tell those that have not confirmed it. */
    private void round() {
        Set<PeerAddress> targets = new TreeSet<>(known);
        targets.addAll(ctx.electionTargets());
        targets.remove(ctx.self());
        for (PeerAddress target : targets) {
            if (barrier < 0) {
                ctx.send(target, new RecoveryQuery(queryId));
            } else if (!acks.contains(target)) {
                ctx.send(target, new BarrierUpdate(queryId, barrier));
            }
        }
    }

    void onResponse(PeerAddress from, RecoveryResponse response) {
        if (response.queryId() != queryId || barrier >= 0) {
            return;
        }
        answers.put(from, response.highestVersion());
        for (PeerAddress address : response.knownNodes()) {
            if (!address.equals(ctx.self())) {
                known.add(address);
            }
        }
        if (answers.size() >= answersNeeded()) {
            long highest = ctx.acceptor().highestVersion();
            for (long seen : answers.values()) {
                highest = Math.max(highest, seen);
            }
            barrier = highest + 1;
            if (acks.size() >= acksNeeded()) {
                host.recovered(barrier);
            } else {
                round();
            }
        }
    }

    void onAck(PeerAddress from, long ackQueryId) {
        if (ackQueryId != queryId || barrier < 0) {
            return;
        }
        acks.add(from);
        if (acks.size() >= acksNeeded()) {
            host.recovered(barrier);
        }
    }

    /** Progress, for {@code problem()}. */
    String describe() {
        if (barrier < 0) {
            return "heard from " + answers.size() + " of the " + answersNeeded() + " other nodes needed";
        }
        return "barrier " + barrier + " saved by " + acks.size() + " of the " + acksNeeded() + " other nodes needed";
    }
}
