package dev.baton.core.lease;

import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeState;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.time.Clock;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lease election tells the world: its events, in the order the machine decides them, and the snapshot other
 * threads read (leadership, leader, state, problem, the first resolved round). {@link LeaseDriver} calls the
 * mutators on its scheduler, as the machine's steps say; the getters are safe from any thread. The machine unpublishes a leadership before it
 * emits the loss, so nobody reads it as valid while listeners learn it is gone.
 */
final class LeaseOutput {

    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final String group;
    private final EventDispatcher events;
    private final StoreLink link;
    private final Clock clock;
    private final CompletableFuture<Boolean> firstRound = new CompletableFuture<>();

    private volatile Leadership leadership;
    private volatile LeaderInfo leader;
    private volatile NodeState state = NodeState.FOLLOWER;
    private volatile String problem;

    LeaseOutput(String group, EventDispatcher events, StoreLink link, Clock clock) {
        this.group = group;
        this.events = events;
        this.link = link;
        this.clock = clock;
    }

    // ------------------------------------------------------------------ read from any thread

    Leadership leadership() {
        return leadership;
    }

    LeaderInfo leader() {
        return leader;
    }

    NodeState state() {
        return state;
    }

    String problem() {
        return problem;
    }

    /** Completes with whether this node led when the first round resolved; fails if closed first. */
    CompletableFuture<Boolean> firstRound() {
        return firstRound;
    }

    // ------------------------------------------------------------------ written on the scheduler

    /** The election started: the store's silence is measured from now until its first reply. */
    void started() {
        link.started();
    }

    void publishLeadership(Leadership value) {
        leadership = value;
    }

    void publishLeader(LeaderInfo value) {
        leader = value;
    }

    void publishState(NodeState value) {
        state = value;
    }

    /** The last failure was followed by a success: the node is no longer degraded. */
    void clearProblem() {
        problem = null;
    }

    void roundResolved(boolean leading) {
        firstRound.complete(leading);
    }

    void closed() {
        firstRound.completeExceptionally(new IllegalStateException("closed"));
    }

    /** Emits {@code event} to every listener; completes when all of them have returned from it. */
    CompletableFuture<Void> emit(ElectionEvent event) {
        return events.emit(event);
    }

    /**
     * A store call of {@code kind} failed ({@code cause} set), or a leadership ended for want of one (no cause). The
     * first is counted by the outage log, which keeps a store that stays down from flooding the log; the second is
     * rare (once per term) and always logged.
     */
    void reportError(String kind, String what, Throwable cause) {
        String message = cause == null ? what : what + ": " + describe(cause);
        if (cause != null) {
            link.failed(kind, message);
            problem = message;
        } else {
            log.warn("[{}] {}", group, message);
        }
        events.emit(new ElectionEvent.ElectionError(clock.instant(), message, cause));
    }

    /**
     * A failure of the store session this election is bound to: its status names the problem and listeners hear an
     * {@code ElectionError}, but the line is the session keeper's to log, once for every group it holds.
     */
    void reportSessionProblem(String what, Throwable cause) {
        String message = what + ": " + describe(cause);
        problem = message;
        events.emit(new ElectionEvent.ElectionError(clock.instant(), message, cause));
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }
}
