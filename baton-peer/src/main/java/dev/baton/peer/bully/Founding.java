package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyNode.Phase;

/**
 * The {@code FOUNDING} phase. No leader was found (seed: "A group-leader is not found"): this node takes process id 1
 * and writes itself into the leader store with the next term. If the store meanwhile names another leader, or refuses
 * the write, the node joins instead; if the store fails, it tries again after electionTimeout.
 */
final class Founding extends BullyPhase {

    /** Where the phase goes next; the node moves to another phase. */
    interface Outcome {

        /** The store took this node's record: it leads {@code term}, valid from {@code issuedAt} (monotonic nanos). */
        void founded(long term, long issuedAt);

        /** A leader exists after all: join it. */
        void join();

        /** The store failed and the wait is over: found again (stand-alone), or look for a leader again. */
        void retry();
    }

    private final PhaseContext context;
    private final GroupView view;
    private final boolean standalone;
    private final Outcome outcome;

    Founding(PhaseContext context, GroupView view, boolean standalone, Outcome outcome) {
        super(Phase.FOUNDING);
        this.context = context;
        this.view = view;
        this.standalone = standalone;
        this.outcome = outcome;
    }

    /** @param lastSeen the record the join loop last read (null: none), so that only a newer one counts as a leader */
    void start(LeaderRecord lastSeen) {
        context.store().read(record -> {
            if (!current()) {
                return;
            }
            if (record.isPresent() && (lastSeen == null || record.get().term() != lastSeen.term())
                    && !standalone) {
                // A leader appeared since the join loop last looked: join it instead.
                outcome.join();
                return;
            }
            long next = view.nextTerm(record, context.clock().instant());
            long issued = context.clock().nanoTime();
            String selfId = context.self().format();
            context.store().write(new LeaderRecord(context.group(), next, selfId, 1, selfId), write -> {
                if (!current()) {
                    return;
                }
                if (write.accepted()) {
                    outcome.founded(next, issued);
                } else {
                    view.observeTerm(write.current().term());
                    outcome.join();
                }
            }, this::failed);
        }, this::failed);
    }

    private void failed(String failure) {
        if (!current()) {
            return;
        }
        context.storeFailed(failure);
        timer = context.scheduler().schedule(context.config().electionTimeout(), () -> {
            if (current()) {
                outcome.retry();
            }
        });
    }
}
