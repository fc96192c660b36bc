package dev.baton.peer.bully;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.Leadership;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.Coordinator;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyNode.Phase;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code LEADING} phase: one term of leadership, from the accepted leader-store write to its loss. The leader
 * reads its record back every storeCheckInterval to confirm the term (which moves the leadership's deadline on), and
 * stops when the store names a newer leader or has not confirmed the term for leadershipValidity. It keeps the
 * authoritative {@link GroupTable} through {@link LeaderTable}, whose steps return their effects for this phase to
 * perform.
 */
final class Leading extends BullyPhase {

    /** Where the leadership goes next; each call moves the node to another phase. */
    interface Outcome {

        /** The store names a newer leader: leave this group and join again through the store. */
        void rejoin(String reason);

        /** The term could not be confirmed in time and is lost: run the election again. */
        void lapsed();

        /** The leadership's state changed (confirmed, or the store failed): publish it. */
        void changed();
    }

    private final PhaseContext context;
    private final GroupView view;
    private final Outcome outcome;
    private final LeaderTable table;
    private long term;
    private Leadership leadership;
    // The only handle that moves the leadership's deadline; listeners get the read-only leadership.
    private LeaseDeadline deadline;
    private Cancellable storeTimer = Cancellable.NONE;
    private Cancellable deadlineTimer = Cancellable.NONE;

    Leading(PhaseContext context, GroupView view, Outcome outcome) {
        super(Phase.LEADING);
        this.context = context;
        this.view = view;
        this.outcome = outcome;
        this.table = new LeaderTable(view, context.self(), context.clock());
    }

    /**
     * The term is this node's (the node has taken the table over and shows itself as leader): the listeners hear it,
     * the members get COORDINATOR and the table, and the store checks begin.
     *
     * @param confirmedAt when the accepted write was sent (monotonic nanos): the leadership is valid from then
     * @param dropped     members the detector had confirmed failed, dropped from the table as it was taken over
     */
    void begin(long confirmedAt, List<GroupMember> dropped) {
        term = view.term();
        long until = confirmedAt + context.config().leadershipValidity().toNanos();
        context.output().validUntil(term, until);
        deadline = new LeaseDeadline(until);
        leadership = deadline.leadership(context.group(), context.self().format(), term, context.clock(),
                context.output()::holds);
        context.output().acquired(leadership);
        context.output().roundCompleted(true);
        for (GroupMember gone : dropped) {
            context.output().memberRemoved(gone.address().format());
        }
        context.broadcast(new Coordinator(term, view.pid()));
        broadcastTable();
        scheduleStoreCheck();
        scheduleDeadline();
    }

    /** Whether the leadership is published and its deadline has not passed. */
    boolean valid() {
        return leadership != null && leadership.isValid();
    }

    // ---- confirming the term in the store

    /**
     * Reads the record back every storeCheckInterval (sooner while the leadership has less than two intervals left,
     * e.g. after a slow first write): confirms the term, or finds it superseded.
     */
    private void scheduleStoreCheck() {
        long left = leadership.deadlineNanos() - context.clock().nanoTime();
        Duration delay = context.config().storeCheckInterval();
        if (left < delay.toNanos() * 2) {
            delay = Duration.ofNanos(Math.max(0, left / 3));
        }
        storeTimer = context.scheduler().schedule(delay, () -> {
            if (current()) {
                checkStore();
            }
        });
    }

    private void checkStore() {
        long issued = context.clock().nanoTime();
        String selfId = context.self().format();
        context.store().read(record -> {
            if (!current()) {
                return;
            }
            if (record.isPresent() && record.get().term() > term) {
                outcome.rejoin("the leader store names a newer leader " + record.get().address() + " (term "
                        + record.get().term() + ")");
                return;
            }
            if (record.isPresent() && record.get().term() == term && record.get().leaderId().equals(selfId)) {
                confirmed(issued);
                return;
            }
            // The store lost the record (or went back): write it again; the compare-and-set decides.
            context.store().write(new LeaderRecord(context.group(), term, selfId, view.pid(), selfId), write -> {
                if (!current()) {
                    return;
                }
                if (write.accepted()) {
                    confirmed(issued);
                } else {
                    outcome.rejoin("the leader store refused this leader's record in favour of " + write.current());
                }
            }, this::checkFailed);
        }, this::checkFailed);
    }

    private void confirmed(long issued) {
        long until = issued + context.config().leadershipValidity().toNanos();
        if (until - deadline.nanos() > 0) {
            context.output().validUntil(term, until);
            deadline.extendTo(until);
        }
        context.problemSolved();
        scheduleDeadline();
        scheduleStoreCheck();
        outcome.changed();
    }

    private void checkFailed(String failure) {
        if (!current()) {
            return;
        }
        context.storeFailed(failure);
        scheduleStoreCheck();
        outcome.changed();
    }

    private void scheduleDeadline() {
        deadlineTimer.cancel();
        long wait = Math.max(0, leadership.deadlineNanos() - context.clock().nanoTime());
        deadlineTimer = context.scheduler().schedule(Duration.ofNanos(wait), () -> {
            if (current() && leadership.deadlineNanos() - context.clock().nanoTime() <= 0) {
                expired();
            }
        });
    }

    /** The term could not be confirmed in the store in time: stop leading, and claim a new term once it answers. */
    private void expired() {
        context.reportError("leadership of term " + term + " lapsed: the leader store did not confirm it for "
                + context.config().leadershipValidity().toMillis() + " ms");
        lose(LossReason.EXPIRED_LOCALLY);
        outcome.lapsed();
    }

    /** Unpublishes the leadership and tells the listeners (their future completes once they have returned). */
    CompletableFuture<Void> lose(LossReason reason) {
        Leadership held = leadership;
        leadership = null;
        deadline = null;
        storeTimer.cancel();
        deadlineTimer.cancel();
        return context.output().lost(term, reason, held != null);
    }

    /** stepDown/close: listeners are told first; the caller tells the members once they have returned. */
    CompletableFuture<Void> release(boolean fromListener) {
        CompletableFuture<Void> delivered = lose(LossReason.RELEASED);
        if (fromListener) {
            // A listener waiting for this would wait for itself.
            return CompletableFuture.completedFuture(null);
        }
        // Listeners get at most coordinatorTimeout: a stuck one must not keep the group without a leader.
        CompletableFuture<Void> bounded = new CompletableFuture<>();
        Cancellable limit = context.scheduler().schedule(context.config().coordinatorTimeout(),
                () -> bounded.complete(null));
        delivered.whenComplete((ignored, error) -> {
            limit.cancel();
            bounded.complete(null);
        });
        return bounded;
    }

    // ---- the table: each step's effects are performed at once, in order

    void onJoin(PeerAddress from, Join request) {
        table.join(from, request).performOn(context);
    }

    void onMemberPing(PeerAddress from, long senderPid) {
        table.memberPinged(from, senderPid).performOn(context);
    }

    void onMemberAck(PeerAddress from, long revision) {
        table.memberAnswered(from, revision).performOn(context);
    }

    void onLeave(PeerAddress from) {
        table.left(from).performOn(context);
    }

    void suspected(PeerAddress address) {
        table.suspected(address).performOn(context);
    }

    void recovered(PeerAddress address) {
        table.recovered(address).performOn(context);
    }

    void failed(PeerAddress address) {
        table.failed(address).performOn(context);
    }

    void updateCard(MemberCard card) {
        table.ownCardChanged(card).performOn(context);
    }

    private void broadcastTable() {
        context.broadcast(view.tableMessage());
    }
}
