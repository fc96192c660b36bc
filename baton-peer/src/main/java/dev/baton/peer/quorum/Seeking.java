package dev.baton.peer.quorum;

import dev.baton.peer.quorum.QuorumMessage.JoinClusterRequest;
import dev.baton.peer.quorum.QuorumMessage.JoinClusterResponse;
import dev.baton.peer.quorum.QuorumMessage.LeaderQuery;
import dev.baton.peer.quorum.QuorumMessage.LeaderResponse;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phases of a node without a leader: {@code SEEKING} (asks the seeds for the leader every retryInterval; seeds and
 * former members run the election when there is none) and {@code JOINING} (asked a leader to admit it), and the
 * start-over after three ttlTimeouts without a leader (seed 003, made safe: the versions are kept). Confined to the
 * node's scheduler.
 */
final class Seeking {

    private static final Logger log = LoggerFactory.getLogger(Seeking.class);

    private final NodeContext ctx;
    private final KnownLeader known;
    private final Transitions node;
    private final Elections elections;
    private final boolean seed;

    Seeking(NodeContext ctx, KnownLeader known, Transitions node, Elections elections) {
        this.ctx = ctx;
        this.known = known;
        this.node = node;
        this.elections = elections;
        this.seed = ctx.config().seeds().contains(ctx.self());
    }

    /** Seeds elect when there is no leader; any node elects when the leader it followed is gone. */
    boolean mayElect() {
        return seed || known.wasMember;
    }

    /** SEEKING: ask the seeds for the leader every retryInterval; {@code now} asks at once, else after one pause. */
    void seek(boolean now) {
        node.enterPhase(QuorumNode.Phase.SEEKING);
        known.joinTarget = null;
        node.setCurrent(null);
        if (now) {
            seekRound();
        } else {
            scheduleSeekRound();
        }
    }

    private void seekRound() {
        if (node.phase() != QuorumNode.Phase.SEEKING) {
            return;
        }
        for (PeerAddress other : otherSeeds()) {
            ctx.send(other, new LeaderQuery(ctx.acceptor().highestVersion()));
        }
        scheduleSeekRound();
    }

    private void scheduleSeekRound() {
        node.phaseTimer(ctx.config().retryInterval(), this::endSeekRound);
    }

    private void endSeekRound() {
        if (node.phase() != QuorumNode.Phase.SEEKING) {
            return;
        }
        long now = ctx.clock().nanoTime();
        if (now - known.lastSeen >= ctx.config().giveUpAfter().toNanos()) {
            giveUp();
            if (node.phase() != QuorumNode.Phase.SEEKING) {
                return;
            }
        }
        if (seed && ctx.config().allowLoneSeedBootstrap()) {
            // Seed 003's seed start-up: no other seed named a leader (or answered) this round, so joining failed
            // and this seed leads (opt-in; unsafe under partitions).
            becomeLeaderWithoutElection();
            return;
        }
        if (mayElect()) {
            node.startElection(0);
        }
        seekRound();
    }

    private List<PeerAddress> otherSeeds() {
        List<PeerAddress> others = new ArrayList<>(ctx.config().seeds());
        others.remove(ctx.self());
        return others;
    }

    void onLeaderResponse(PeerAddress from, LeaderResponse response) {
        if (node.phase() != QuorumNode.Phase.SEEKING) {
            return;
        }
        if (response.leader() == null || response.leader().equals(ctx.self())) {
            return;
        }
        if (response.version() < known.version) {
            return;
        }
        join(response.leader(), response.version());
    }

    /** JOINING: ask {@code target}, the leader of {@code version}, to admit this node; seek again if it does not. */
    void join(PeerAddress target, long version) {
        node.enterPhase(QuorumNode.Phase.JOINING);
        known.joinTarget = target;
        node.setCurrent(null);
        if (known.view.version() != version) {
            // A view for the leader joined, so that updates arriving before the answer are kept (case 2); it keeps
            // the members known so far until that leader's table replaces them.
            known.view = known.view.carriedTo(version);
        }
        ctx.send(target, new JoinClusterRequest(node.card(), version));
        node.phaseTimer(ctx.config().retryInterval().multipliedBy(2), () -> seek(true));
    }

    void onJoinResponse(PeerAddress from, JoinClusterResponse response) {
        if (node.phase() != QuorumNode.Phase.JOINING || !from.equals(known.joinTarget)) {
            return;
        }
        if (!response.accepted()) {
            log.debug("{}: {} refused to admit it: {}", ctx.self(), from, response.reason());
            if (response.reason() != null && response.reason().startsWith("cluster full")) {
                node.reportError("join refused by " + from + ": " + response.reason(), null);
            }
            PeerAddress redirect = response.leader();
            if (redirect != null && !redirect.equals(from) && !redirect.equals(ctx.self())
                    && response.version() >= known.version) {
                join(redirect, response.version());
            } else {
                seek(false);
            }
            return;
        }
        if (!node.adoptLeader(from, response.version())) {
            seek(false);
            return;
        }
        node.becomeFollower(true);
    }

    /** Three ttlTimeouts without a leader: start over from the seeds, keeping the versions (seed 003, made safe). */
    void giveUp() {
        known.lastSeen = ctx.clock().nanoTime();
        if (seed && ctx.config().allowLoneSeedBootstrap()) {
            becomeLeaderWithoutElection();
            return;
        }
        known.wasMember = false;
        known.view = new MemberView(0);
        elections.cancel();
        seek(true);
    }

    /** Opt-in (allowLoneSeedBootstrap): seed 003's seed that makes itself leader without an election. */
    private void becomeLeaderWithoutElection() {
        long version = Math.max(ctx.acceptor().highestVersion(), known.version) + 1;
        log.warn("{} makes itself leader of version {} without a majority (allowLoneSeedBootstrap)", ctx.self(),
                version);
        if (node.adoptLeader(ctx.self(), version)) {
            node.becomeLeaderElect();
        }
    }
}
