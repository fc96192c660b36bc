package dev.baton.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

/**
 * Leader election for one group: among all processes running an election for the same group on the same backend,
 * at most one leads per term, and terms strictly increase.
 *
 * <p>Life cycle: created, {@link #start() started} once, {@link #close() closed} once. Closing a leader releases the
 * lease so that a successor takes over at once instead of waiting for expiry.
 */
public interface Election extends AutoCloseable {

    /** The group this election is for. */
    String group();

    /** This node's id in the group. */
    String nodeId();

    /** Starts contending. Can be called once; later calls do nothing. */
    void start();

    /**
     * Blocks until the first round of election resolved (seed 000's {@code waitForElectionComplete}).
     *
     * @return whether this node leads
     * @throws TimeoutException if no round resolved in time (the store may be unreachable)
     */
    boolean awaitElected(Duration timeout) throws InterruptedException, TimeoutException;

    /**
     * Completes when the first round of election resolved, with whether this node led then; fails if the election
     * was closed first. The non-blocking twin of {@link #awaitElected(Duration)}.
     */
    CompletableFuture<Boolean> whenElected();

    /** True while this node holds a valid leadership. */
    boolean isLeader();

    /** This node's current leadership, if it holds a valid one. */
    Optional<Leadership> leadership();

    /** The leader this node knows of, with its term. */
    Optional<LeaderInfo> leader();

    /** This node's state: follower, candidate, leader or stopped. */
    NodeState state();

    /**
     * The latest unresolved failure talking to the backend (a store call that failed or timed out), cleared by the
     * next call that succeeds. Present means the node is degraded: it may not learn of a new leader in time.
     */
    Optional<String> problem();

    /**
     * How recently this node heard from its store; empty for elections without a store (the peer and bully
     * protocols), which is the default. While it is not {@link StoreContact#reachable() reachable}, {@link #leader()}
     * still returns the last leader seen, but nothing vouches for it any more: callers that answer others (the HTTP
     * API) should say the store is unavailable instead of naming it.
     */
    default Optional<StoreContact> storeContact() {
        return Optional.empty();
    }

    /** A snapshot of the group: this node's state, the leader, every live member with its state. */
    CompletableFuture<ClusterStatus> status();

    /**
     * Gives up leadership (if held) and releases the lease so another node takes over. This node will not contend
     * again until another node has taken the lease or the check interval has passed.
     */
    CompletableFuture<Void> stepDown();

    /** Adds a listener called on the election's event queue. See {@link ElectionListener} for the contract. */
    Registration addListener(ElectionListener listener);

    /** Adds a listener called on {@code executor}, one event at a time, in order. */
    Registration addListener(ElectionListener listener, Executor executor);

    /**
     * The group's members as this node sees them. An election on a shared store ({@link StoreElection}) also offers
     * the store's process registry and registers fenced by the store.
     */
    Membership membership();

    /**
     * Stops the election: a leader stops acting, listeners are told, the lease is released, this process's registry
     * entry is removed. Idempotent; blocks until done (bounded by about the lease TTL).
     *
     * <p>Called from a listener, or from anything else running on the election's own thread (a listener added with a
     * direct executor runs there), it starts the close and returns at once without waiting: the close needs that
     * thread, or waits for that listener to return, so waiting would only hold the lease until the timeout. The
     * listener then receives {@code LeadershipLost} (reason {@code RELEASED}) after it returns, and the lease is
     * released without waiting for it; use {@link #closeAsync()} to learn when the close has finished.
     */
    @Override
    void close();

    /** {@link #close()} without blocking: the future completes when the election has closed. */
    CompletableFuture<Void> closeAsync();
}
