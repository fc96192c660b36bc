package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.Answer;
import dev.baton.peer.bully.BullyMessage.Election;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.bully.BullyNode.Phase;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;

/**
 * The election of seed 004, in three phases: {@link Electing} (ELECTION sent to every higher live process),
 * {@link Awaiting} (a higher process answered, or another member won the store: wait for its COORDINATOR) and
 * {@link Claiming} (no higher process answered: take the next term from the leader store by compare-and-set). Each
 * phase is one object; the node moves between them through {@link Outcome}.
 */
final class Candidacy {

    private Candidacy() {
    }

    /** Where the election goes next; each call moves the node to another phase. */
    interface Outcome {

        /** Nobody higher took the election over: claim the next term. */
        void claim();

        /** Wait for another member's COORDINATOR for {@code timeout}. */
        void await(Duration timeout);

        /** The store took this node's record: it leads {@code term}, valid from {@code issuedAt} (monotonic nanos). */
        void elected(long term, long issuedAt);

        /** No COORDINATOR came: run the election again (as a member without a leader). */
        void electAgain();

        /** A newer leadership exists outside this group: leave it and join again through the store. */
        void rejoin(String reason);
    }

    /** {@code ELECTING}: ELECTION went to every higher live process; with no ANSWER in electionTimeout, claim. */
    static final class Electing extends BullyPhase {

        private final PhaseContext context;
        private final GroupView view;
        private final Outcome outcome;

        Electing(PhaseContext context, GroupView view, Outcome outcome) {
            super(Phase.ELECTING);
            this.context = context;
            this.view = view;
            this.outcome = outcome;
        }

        void start() {
            List<GroupMember> higher = view.higherLive();
            if (higher.isEmpty()) {
                outcome.claim();
                return;
            }
            for (GroupMember member : higher) {
                context.send(member.address(), new Election(view.term(), view.pid()));
            }
            timer = context.scheduler().schedule(context.config().electionTimeout(), () -> {
                if (current()) {
                    outcome.claim();
                }
            });
        }

        /** An ANSWER of this group's term (the node checked the term): a higher process takes the election over. */
        void onAnswer(PeerAddress from, Answer answer) {
            if (answer.term() == view.term() && view.outranksSelf(answer.pid(), from)) {
                outcome.await(context.config().coordinatorTimeout());
            }
        }
    }

    /** {@code AWAITING}: waits for a higher process's COORDINATOR; without one in time, the election runs again. */
    static final class Awaiting extends BullyPhase {

        private final PhaseContext context;
        private final Outcome outcome;

        Awaiting(PhaseContext context, Outcome outcome) {
            super(Phase.AWAITING);
            this.context = context;
            this.outcome = outcome;
        }

        void start(Duration timeout) {
            timer = context.scheduler().schedule(timeout, () -> {
                if (current()) {
                    outcome.electAgain();
                }
            });
        }
    }

    /**
     * {@code CLAIMING}: no higher process answered, so this node takes the next term from the store. The store is read
     * first; if it names a newer leadership than this group's, this node does not overwrite it: it waits for that
     * leader if it is a member here, and joins it otherwise.
     */
    static final class Claiming extends BullyPhase {

        private final PhaseContext context;
        private final GroupView view;
        private final Outcome outcome;

        Claiming(PhaseContext context, GroupView view, Outcome outcome) {
            super(Phase.CLAIMING);
            this.context = context;
            this.view = view;
            this.outcome = outcome;
        }

        void start() {
            String selfId = context.self().format();
            context.store().read(record -> {
                if (!current()) {
                    return;
                }
                if (record.isPresent() && newerLeadership(record.get()) && record.get().term() != view.awaitedTerm) {
                    yieldTo(record.get());
                    return;
                }
                long next = view.nextTerm(record, context.clock().instant());
                // The accepted write proves the term from the moment it was sent: the leadership is valid from then.
                long issued = context.clock().nanoTime();
                context.store().write(new LeaderRecord(context.group(), next, selfId, view.pid(), selfId), write -> {
                    if (!current()) {
                        return;
                    }
                    if (write.accepted()) {
                        outcome.elected(next, issued);
                    } else {
                        yieldTo(write.current());
                    }
                }, this::failed);
            }, this::failed);
        }

        private boolean newerLeadership(LeaderRecord record) {
            return record.term() > view.term() && !record.leaderId().equals(context.self().format());
        }

        /**
         * The store names a newer leadership than this group's. If its holder is a member here (it won a concurrent
         * claim), wait once for its COORDINATOR; a record whose holder never announces itself (it died, or gave up on a
         * claim whose write went through) is then overwritten. A holder outside this group is joined.
         */
        private void yieldTo(LeaderRecord record) {
            view.observeTerm(record.term());
            PeerAddress holder = addressOf(record);
            if (holder != null && view.table.get(holder) != null) {
                view.awaitedTerm = record.term();
                outcome.await(context.config().coordinatorTimeout());
            } else {
                outcome.rejoin("the leader store names a newer leader " + record.address() + " (term "
                        + record.term() + ")");
            }
        }

        /** The store failed: wait electionTimeout (as if for a COORDINATOR), then run the election again. */
        private void failed(String failure) {
            if (!current()) {
                return;
            }
            context.storeFailed(failure);
            outcome.await(context.config().electionTimeout());
        }

        private static PeerAddress addressOf(LeaderRecord record) {
            try {
                return PeerAddress.parse(record.address());
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }
}
