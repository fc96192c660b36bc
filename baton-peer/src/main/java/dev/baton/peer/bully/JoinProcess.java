package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.time.Scheduler.Cancellable;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
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
 * One instance per run; it stops as soon as its node moves on (the epoch it was started in is gone).
 */
final class JoinProcess {

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

    private final BullyNode node;
    private final long epoch;
    private int attempt;
    private int reads;
    private Failure lastFailure = Failure.NO_LEADER;
    private LeaderRecord lastRecord;
    private PeerAddress target;
    private final Set<PeerAddress> asked = new HashSet<>();
    private Cancellable timer = Cancellable.NONE;

    JoinProcess(BullyNode node, long epoch) {
        this.node = node;
        this.epoch = epoch;
    }

    void start() {
        nextAttempt();
    }

    void cancel() {
        timer.cancel();
        target = null;
    }

    int attempt() {
        return attempt;
    }

    /** The newest record this run read, or null. */
    LeaderRecord lastRecord() {
        return lastRecord;
    }

    /** What this run is doing, for {@code problem()}. */
    String describe() {
        String now = target != null ? "asked " + target + " to admit it" : "reading the leader store";
        return "joining: attempt " + attempt + " of " + node.config().joinAttempts() + ", " + now
                + (attempt > 1 || reads > 1 ? " (last: " + lastFailure.text + ")" : "");
    }

    private boolean current() {
        return node.epoch() == epoch;
    }

    private void nextAttempt() {
        attempt++;
        reads = 0;
        read();
    }

    private void read() {
        reads++;
        target = null;
        node.store().read(record -> {
            if (current()) {
                onRecord(record);
            }
        }, failure -> {
            if (current()) {
                node.storeFailed(failure);
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
            node.storeFailed("the leader record names an unusable address '" + record.get().address() + "': "
                    + e.getMessage());
            noLeader(Failure.NO_LEADER);
            return;
        }
        if (leader.equals(node.self())) {
            // Seed: a record naming this node's own address looks like a working leader (it answers its own
            // ping); treat it as no leader at all.
            noLeader(Failure.OWN_ADDRESS);
            return;
        }
        target = leader;
        asked.add(leader);
        node.send(leader, new Join(node.incarnation(), node.card()));
        timer = node.scheduler().schedule(node.config().joinTimeout(), () -> {
            if (current() && leader.equals(target)) {
                attemptFailed(Failure.NO_CONTACT, randomPause());
            }
        });
    }

    private void noLeader(Failure failure) {
        lastFailure = failure;
        if (reads < node.config().readsPerAttempt()) {
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
        node.joined(from, accepted);
    }

    void onRefused(PeerAddress from, JoinRefused refused) {
        if (!from.equals(target)) {
            return;
        }
        timer.cancel();
        target = null;
        switch (refused.reason()) {
            case NOT_LEADER -> attemptFailed(Failure.NOT_LEADER, randomPause());
            case ADDRESS_IN_USE -> attemptFailed(Failure.ADDRESS_IN_USE, node.config().addressInUsePause());
            default -> attemptFailed(Failure.REFUSED, node.config().addressInUsePause());
        }
    }

    private void attemptFailed(Failure failure, Duration pause) {
        lastFailure = failure;
        pause(pause, () -> {
            if (attempt < node.config().joinAttempts()) {
                nextAttempt();
            } else if (failure.foundsGroup()) {
                node.foundGroup(lastRecord);
            } else {
                node.joinFailed(failure.text, lastRecord);
            }
        });
    }

    private void pause(Duration pause, Runnable then) {
        timer = node.scheduler().schedule(pause, () -> {
            if (current()) {
                then.run();
            }
        });
    }

    /** Seed 004: a random wait of 1 ms to joinPauseMax (1 s by default). */
    private Duration randomPause() {
        long maxMillis = node.config().joinPauseMax().toMillis();
        return Duration.ofMillis(1 + node.random().nextInt((int) Math.min(Integer.MAX_VALUE, maxMillis)));
    }
}
