package dev.baton.peer.quorum;

import static dev.baton.peer.quorum.QuorumMessage.NO_STAMP;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.quorum.QuorumMessage.LeaderRelieve;
import dev.baton.peer.quorum.QuorumMessage.LeaderResign;
import dev.baton.peer.quorum.QuorumMessage.ReJoinCluster;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One term of this node as leader: {@code LEADER_ELECT} (decided, waiting for its first majority of acknowledgements)
 * then {@code LEADING}, until it resigns, is relieved, loses its majority (check-quorum) or learns of a newer leader.
 * It owns the term's {@link LeaderDuties} (the member table) and the {@link Leadership} with its deadline; the
 * duties report majorities and member changes back through {@link LeaderDuties.Term}. Confined to the node's
 * scheduler.
 */
final class LeaderTerm implements LeaderDuties.Term {

    private static final Logger log = LoggerFactory.getLogger(LeaderTerm.class);

    private final NodeContext ctx;
    private final KnownLeader known;
    private final Transitions node;
    private final Notices notices;
    private final String group;
    private final LeaderDuties duties;
    // The only handle that moves the leadership's deadline; listeners get the read-only leadership.
    private LeaseDeadline deadline;
    private Leadership leadership;
    private Cancellable deadlineTimer = Cancellable.NONE;

    /**
     * The term of {@code version}, the known leader's, starting from the table this node knew as a follower. The caller
     * has saved the version as led and entered {@code LEADER_ELECT}. While the term lasts, its messages and events
     * carry the known version, which only news of a newer election of this very node moves.
     */
    LeaderTerm(NodeContext ctx, KnownLeader known, Transitions node, Notices notices, String group, long version) {
        this.ctx = ctx;
        this.known = known;
        this.node = node;
        this.notices = notices;
        this.group = group;
        this.duties = new LeaderDuties(ctx, this, version, node.card(), known.view.members());
    }

    LeaderDuties duties() {
        return duties;
    }

    /** Announces the term (with stamps), counts the votes that decided it, waits heartbeatTimeout for a majority. */
    void begin(Set<PeerAddress> backers, long backedSince) {
        duties.announce();
        duties.backedByVotes(backers, backedSince);
        node.phaseTimer(ctx.config().heartbeatTimeout(), () -> {
            if (node.phase() == QuorumNode.Phase.LEADER_ELECT) {
                log.debug("{}: elected for version {} but no majority acknowledged it", ctx.self(), known.version);
                known.resignedVersion = known.version;
                node.seek(true);
            }
        });
        duties.recomputeDeadline(ctx.clock().nanoTime());
    }

    /** The valid leadership, or {@code null} before the first majority. */
    Leadership leadership() {
        return leadership;
    }

    @Override
    public boolean awaitingMajority() {
        return node.phase() == QuorumNode.Phase.LEADER_ELECT;
    }

    @Override
    public long leadershipDeadline() {
        return node.phase() == QuorumNode.Phase.LEADING && leadership != null ? leadership.deadlineNanos() : NO_STAMP;
    }

    /** A deadline the acknowledgements of a majority support: starts or extends the leadership. */
    @Override
    public void onMajorityDeadline(long until) {
        long now = ctx.clock().nanoTime();
        if (until - now <= 0) {
            return;
        }
        if (node.phase() == QuorumNode.Phase.LEADER_ELECT) {
            becomeLeader(until);
        } else if (node.phase() == QuorumNode.Phase.LEADING && leadership != null) {
            if (until - deadline.nanos() > 0) {
                notices.output().validUntil(known.version, until);
                deadline.extendTo(until);
                armDeadline();
            }
        }
    }

    private void becomeLeader(long until) {
        node.enterPhase(QuorumNode.Phase.LEADING);
        notices.output().validUntil(known.version, until);
        deadline = new LeaseDeadline(until);
        leadership = deadline.leadership(group, ctx.self().format(), known.version, ctx.clock(),
                notices.output()::holds);
        notices.acquired(leadership);
        node.closeRound(true);
        armDeadline();
    }

    private void armDeadline() {
        deadlineTimer.cancel();
        Leadership armed = leadership;
        deadlineTimer = ctx.scheduler().schedule(Duration.ofNanos(Math.max(0, armed.deadlineNanos()
                - ctx.clock().nanoTime())), () -> {
                    if (leadership != armed || node.phase() != QuorumNode.Phase.LEADING) {
                        return;
                    }
                    if (ctx.clock().nanoTime() - leadership.deadlineNanos() >= 0) {
                        // Check-quorum: no majority acknowledged this leader within heartbeatTimeout.
                        node.reportError("leadership of version " + known.version + " lost: no majority heard within "
                                + ctx.config().heartbeatTimeout().toMillis() + " ms", null);
                        node.stopLeading(LossReason.EXPIRED_LOCALLY);
                        node.seek(true);
                    } else {
                        armDeadline();
                    }
                });
    }

    /** Ends the term (the caller leaves the phase): no more deadline, no more leadership. */
    private void end(long term) {
        leadership = null;
        deadline = null;
        deadlineTimer.cancel();
        known.resignedVersion = term;
    }

    /**
     * Stops counting this node as leader (before anyone is told), emits the loss if it held a valid leadership, and
     * returns the version given up.
     */
    long stop(LossReason reason) {
        long term = known.version;
        boolean wasValid = node.phase() == QuorumNode.Phase.LEADING;
        node.enterPhase(QuorumNode.Phase.SEEKING);
        end(term);
        notices.lost(term, reason, wasValid);
        node.setCurrent(null);
        node.openRound();
        return term;
    }

    /**
     * Graceful hand-over: stop leading, let the listeners return from {@code LeadershipLost}, then tell every member
     * (naming the member that acknowledged most recently as the successor) so it can be elected at once. {@code
     * sendResignation} sends one message from whichever thread completes the hand-over.
     */
    CompletableFuture<Void> resign(boolean leaving, boolean fromListener,
            BiConsumer<PeerAddress, QuorumMessage> sendResignation) {
        PeerAddress successor = duties.successor();
        List<PeerAddress> members = duties.others();
        boolean wasValid = node.phase() == QuorumNode.Phase.LEADING;
        long term = known.version;
        end(term);
        node.enterPhase(QuorumNode.Phase.SEEKING);
        CompletableFuture<Void> delivered = notices.lost(term, LossReason.RELEASED, wasValid);
        node.setCurrent(null);
        node.openRound();
        CompletableFuture<Void> sent = new CompletableFuture<>();
        AtomicBoolean once = new AtomicBoolean();
        Runnable resignation = () -> {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            LeaderResign message = new LeaderResign(term, successor, leaving);
            for (PeerAddress member : members) {
                sendResignation.accept(member, message);
            }
            sent.complete(null);
        };
        if (fromListener) {
            // The listener that asked is itself being delivered to: waiting for it would wait for ourselves.
            ctx.scheduler().execute(resignation);
            return sent;
        }
        // Bounded wait for slow listeners: without a resignation the members elect after ttlTimeout anyway.
        Cancellable fallback = ctx.scheduler().schedule(ctx.config().heartbeatTimeout(), resignation);
        // The resignation may go out from the thread that delivered the last event: it touches no node state.
        delivered.whenComplete((ignored, error) -> {
            fallback.cancel();
            resignation.run();
        });
        return sent;
    }

    /** A seed's LeaderRelieve: a leader of a newer version (or a larger address) wins the island conflict. */
    void onRelieve(LeaderRelieve relieve) {
        long term = known.version;
        if (relieve.loserVersion() != term || relieve.winner().equals(ctx.self())
                || !SeedConflicts.beats(relieve.winnerVersion(), relieve.winner(), term, ctx.self())) {
            return;
        }
        log.info("{}: relieved as leader of version {} in favour of {} (version {})", ctx.self(), term,
                relieve.winner(), relieve.winnerVersion());
        // Every member is told, the joining ones too (exceptional case 4), before this node rejoins.
        for (PeerAddress member : duties.others()) {
            ctx.send(member, new ReJoinCluster(term));
        }
        node.stopLeading(LossReason.LEASE_TAKEN);
        node.join(relieve.winner(), relieve.winnerVersion());
    }

    // Member events are the leader's (seed 000: slave-registered and slave-removed are emitted on the master only).

    @Override
    public void memberJoined(MemberEntry entry) {
        if (node.phase() == QuorumNode.Phase.LEADING) {
            notices.memberJoined(QuorumMembership.nodeInfo(entry, ctx.self()));
        }
    }

    @Override
    public void memberStateChanged(MemberEntry entry, MemberState from, MemberState to) {
        if (node.phase() == QuorumNode.Phase.LEADING) {
            notices.memberStateChanged(QuorumMembership.nodeInfo(entry, ctx.self()), from, to);
        }
    }

    @Override
    public void memberRemoved(PeerAddress address) {
        if (node.phase() == QuorumNode.Phase.LEADING) {
            notices.memberRemoved(address.format());
        }
    }
}
