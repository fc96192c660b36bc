package dev.baton.peer.internal;

import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.NodeState;
import dev.baton.core.spi.EventDispatcher;
import dev.baton.core.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a serverless node (quorum or bully) tells the world: its events, in the order they happen, and the snapshot
 * that other threads read (leadership, leader, state, problem, the first resolved round). The node calls the mutators
 * on its scheduler; the getters are safe from any thread. A leadership is unpublished <em>before</em> its loss is
 * emitted, so nobody reads it as valid while listeners learn it is gone.
 *
 * <p>Shared by the protocols' state machines; not a published API.
 */
public final class NodeOutput {

    private static final Logger log = LoggerFactory.getLogger(NodeOutput.class);

    private final EventDispatcher events;
    private final Clock clock;
    private final ElectionMetrics metrics;
    private boolean metricsFailureLogged;
    private final CompletableFuture<Boolean> firstRound = new CompletableFuture<>();
    private boolean roundOpen;

    private volatile Leadership leadership;
    private volatile LeaderInfo leader;
    private volatile NodeState state = NodeState.FOLLOWER;
    private volatile String problem;

    /** An output that reports to no metrics. */
    public NodeOutput(EventDispatcher events, Clock clock) {
        this(events, clock, ElectionMetrics.NONE);
    }

    /** An output that also reports each leadership's deadline to {@code metrics} ({@link #validUntil}). */
    public NodeOutput(EventDispatcher events, Clock clock, ElectionMetrics metrics) {
        this.events = events;
        this.clock = clock;
        this.metrics = metrics;
    }

    // ---- read from any thread

    public Leadership leadership() {
        return leadership;
    }

    public LeaderInfo leader() {
        return leader;
    }

    public NodeState state() {
        return state;
    }

    public String problem() {
        return problem;
    }

    public CompletableFuture<Boolean> firstRound() {
        return firstRound;
    }

    /** Whether {@code term} is the leadership currently published (the {@link Leadership} term check). */
    public boolean holds(long term) {
        Leadership held = leadership;
        return held != null && held.term() == term;
    }

    // ---- the node's scheduler only

    public void snapshot(NodeState newState, String newProblem) {
        state = newState;
        problem = newProblem;
    }

    /** A round of election begins: the node has no leader. Emitted once per round. */
    public void roundStarted() {
        if (!roundOpen) {
            roundOpen = true;
            events.emit(new ElectionEvent.ElectionStarted(clock.instant()));
        }
    }

    /** The round resolved: this node leads, or follows {@link #leader()}. */
    public void roundCompleted(boolean leading) {
        if (roundOpen) {
            roundOpen = false;
            events.emit(new ElectionEvent.ElectionCompleted(clock.instant(), leading, Optional.ofNullable(leader)));
        }
        firstRound.complete(leading);
    }

    public void leaderChanged(LeaderInfo info) {
        leader = info;
        events.emit(new ElectionEvent.LeaderChanged(clock.instant(), Optional.ofNullable(info)));
    }

    /**
     * The leadership of {@code term} counts itself valid until {@code deadlineNanos} (on the node's clock): called when
     * the deadline is set and each time it moves, before it takes effect ({@link ElectionMetrics#validUntil}). A
     * metrics implementation that throws is logged once and otherwise ignored, so that it cannot stop the protocol
     * halfway through a step.
     */
    public void validUntil(long term, long deadlineNanos) {
        try {
            metrics.validUntil(term, deadlineNanos);
        } catch (RuntimeException e) {
            if (!metricsFailureLogged) {
                metricsFailureLogged = true;
                log.error("ElectionMetrics.validUntil of {} failed; the election goes on, and further failures of it"
                        + " are not logged", metrics, e);
            }
        }
    }

    public void acquired(Leadership held) {
        leadership = held;
        state = NodeState.LEADER;
        events.emit(new ElectionEvent.LeadershipAcquired(clock.instant(), held));
    }

    /** Unpublishes the leadership, then (if it was valid) tells the listeners; completes once they have returned. */
    public CompletableFuture<Void> lost(long term, LossReason reason, boolean wasValid) {
        leadership = null;
        return wasValid ? events.emit(new ElectionEvent.LeadershipLost(clock.instant(), term, reason))
                : CompletableFuture.completedFuture(null);
    }

    public void memberJoined(NodeInfo member) {
        events.emit(new ElectionEvent.MemberJoined(clock.instant(), member));
    }

    public void memberStateChanged(NodeInfo member, MemberState from, MemberState to) {
        events.emit(new ElectionEvent.MemberStateChanged(clock.instant(), member, from, to));
    }

    public void memberRemoved(String nodeId) {
        events.emit(new ElectionEvent.MemberRemoved(clock.instant(), nodeId));
    }

    public void error(String message, Throwable cause) {
        events.emit(new ElectionEvent.ElectionError(clock.instant(), message, cause));
    }

    public void closed(String group) {
        leadership = null;
        leader = null;
        state = NodeState.STOPPED;
        problem = null;
        firstRound.completeExceptionally(new IllegalStateException("the election of group " + group + " was closed"));
    }
}
