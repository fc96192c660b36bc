package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyNode.Phase;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Seed 004's start-up: find the leader through the leader store and join it, in at most {@code joinAttempts} (4)
 * attempts of up to {@code readsPerAttempt} (3) reads each.
 *
 * <ul>
 *   <li>A read that finds no record, fails (the seed makes no distinction), or finds a record naming this node's own
 *       address (a leader that was the last one standing and died) counts as "no leader"; the next read follows a
 *       random pause of 1 ms to joinPauseMax (1 s).</li>
 *   <li>With a record, {@link Join} goes to its leader. Accepted: the leader's process id and table, done. No answer
 *       within joinTimeout: not contacted, random pause, next attempt. {@code NOT_LEADER}: the record was stale
 *       (a cold start), random pause, next attempt. {@code ADDRESS_IN_USE} (or another refusal): pause
 *       addressInUsePause (5 s), next attempt.</li>
 *   <li>After the last attempt: if it found no leader or could not contact it, the node founds the group itself
 *       (process id 1, writes the record); if the leader refused it, the seed exits with an error: here the node
 *       reports the error and starts over, since a library must not end its host process.</li>
 * </ul>
 *
 * The {@code JOINING} phase: one instance per run; it stops as soon as its node moves on to another phase.
 */
final class JoinProcess extends BullyPhase {

    /** How the run ends; each call moves the node to another phase. */
    interface Outcome {

        /** The leader {@code from} admitted this node (seed: the Ack with a PID). */
        void joined(PeerAddress from, JoinAccepted accepted);

        /** No leader found, or it could not be contacted: found the group ({@code lastSeen}: the last record read). */
        void noLeader(LeaderRecord lastSeen);

        /** The leader kept refusing: report it and start over ({@code record}: the last record read, or null). */
        void refused(String reason, LeaderRecord record);
    }

    /** Why an attempt failed; the last one decides how the process ends. */
    enum Failure {
        NO_LEADER("no leader in the leader store"),
        OWN_ADDRESS("the leader store names this node's own address"),
        NO_CONTACT("the leader did not answer"),
        NOT_LEADER("the node in the leader store is not the leader (stale record)"),
        ADDRESS_IN_USE("the leader still has a member on this node's address"),
        REFUSED("the leader refused the join");

        final String text;

        Failure(String text) {
            this.text = text;
        }

        /** The outcomes after which the seed has the process found the group itself. */
        boolean foundsGroup() {
            return this == NO_LEADER || this == OWN_ADDRESS || this == NO_CONTACT;
        }
    }

    private final PhaseContext context;
    private final Outcome outcome;
    private int attempt;
    private int reads;
    private Failure lastFailure = Failure.NO_LEADER;
    private LeaderRecord lastRecord;
    private PeerAddress target;
    private final Set<PeerAddress> asked = new HashSet<>();

    JoinProcess(PhaseContext context, Outcome outcome) {
        super(Phase.JOINING);
        this.context = context;
        this.outcome = outcome;
    }

    void start() {
        nextAttempt();
    }

    int attempt() {
        return attempt;
    }

    /** The newest record this run read, or null. */
    LeaderRecord lastRecord() {
        return lastRecord;
    }

    /** What this run is doing, for {@code problem()}. */
    @Override
    String describe() {
        String now = target != null ? "asked " + target + " to admit it" : "reading the leader store";
        return "joining: attempt " + attempt + " of " + context.config().joinAttempts() + ", " + now
                + (attempt > 1 || reads > 1 ? " (last: " + lastFailure.text + ")" : "");
    }

    private void nextAttempt() {
        attempt++;
        reads = 0;
        read();
    }

    private void read() {
        reads++;
        target = null;
        context.store().read(record -> {
            if (current()) {
                onRecord(record);
            }
        }, failure -> {
            if (current()) {
                context.storeFailed(failure);
                noLeader(Failure.NO_LEADER);
            }
        });
    }

    private void onRecord(Optional<LeaderRecord> record) {
        if (record.isEmpty()) {
            noLeader(Failure.NO_LEADER);
            return;
        }
        lastRecord = record.get();
        PeerAddress leader;
        try {
            leader = PeerAddress.parse(record.get().address());
        } catch (IllegalArgumentException e) {
            context.storeFailed("the leader record names an unusable address '" + record.get().address() + "': "
                    + e.getMessage());
            noLeader(Failure.NO_LEADER);
            return;
        }
        if (leader.equals(context.self())) {
            // Seed: a record naming this node's own address looks like a working leader (it answers its own
            // ping); treat it as no leader at all.
            noLeader(Failure.OWN_ADDRESS);
            return;
        }
        target = leader;
        asked.add(leader);
        context.send(leader, new Join(context.incarnation(), context.card()));
        timer = context.scheduler().schedule(context.config().joinTimeout(), () -> {
            if (current() && leader.equals(target)) {
                attemptFailed(Failure.NO_CONTACT, randomPause());
            }
        });
    }

    private void noLeader(Failure failure) {
        lastFailure = failure;
        if (reads < context.config().readsPerAttempt()) {
            pause(randomPause(), this::read);
        } else {
            attemptFailed(failure, randomPause());
        }
    }

    /** An admission; also a late one, from a leader asked in an earlier attempt whose answer came after the wait. */
    void onAccepted(PeerAddress from, JoinAccepted accepted) {
        if (!asked.contains(from)) {
            return;
        }
        timer.cancel();
        target = null;
        outcome.joined(from, accepted);
    }

    void onRefused(PeerAddress from, JoinRefused refused) {
        if (!from.equals(target)) {
            return;
        }
        timer.cancel();
        target = null;
        switch (refused.reason()) {
            case NOT_LEADER -> attemptFailed(Failure.NOT_LEADER, randomPause());
            case ADDRESS_IN_USE -> attemptFailed(Failure.ADDRESS_IN_USE, context.config().addressInUsePause());
            default -> attemptFailed(Failure.REFUSED, context.config().addressInUsePause());
        }
    }

    private void attemptFailed(Failure failure, Duration pause) {
        lastFailure = failure;
        pause(pause, () -> {
            if (attempt < context.config().joinAttempts()) {
                nextAttempt();
            } else if (failure.foundsGroup()) {
                outcome.noLeader(lastRecord);
            } else {
                outcome.refused(failure.text, lastRecord);
            }
        });
    }

    private void pause(Duration pause, Runnable then) {
        timer = context.scheduler().schedule(pause, () -> {
            if (current()) {
                then.run();
            }
        });
    }

    /** Seed 004: a random wait of 1 ms to joinPauseMax (1 s by default). */
    private Duration randomPause() {
        long maxMillis = context.config().joinPauseMax().toMillis();
        return Duration.ofMillis(1 + context.random().nextInt((int) Math.min(Integer.MAX_VALUE, maxMillis)));
    }
}
