package dev.baton.server.chaos;

import dev.baton.testkit.StoreClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The backend a chaos run puts under fault: the servers it needs (started privately on loopback by the testkit), the
 * arguments that point each node at them, the faults that make sense for it, and how to inject and heal the faults
 * that concern the store. Faults of the nodes themselves (kill, pause, partition) are the run's: they are the same on
 * every backend.
 */
interface ChaosTarget extends AutoCloseable {

    /** The backend's name on the command line, e.g. {@code redis} or {@code redis-sentinel}. */
    String name();

    /** The faults a trial may choose from on this backend. */
    List<FaultKind> faults();

    /**
     * Faults the backend supports that run only when {@code --faults} names them, never drawn at random: the
     * store-clock faults, which need the store started on a clock of its own.
     */
    default List<FaultKind> faultsOnRequest() {
        return List.of();
    }

    /**
     * The faults that need the work cluster, appended to {@link #faults()} in runs with workers: by default
     * {@link ChaosRun#WORKER_FAULTS}; none where the nodes have no hook for them.
     */
    default List<FaultKind> workerFaults() {
        return ChaosRun.WORKER_FAULTS;
    }

    /**
     * The store's wall clock, which the store-clock faults step and skew; empty unless the target's store expires
     * leases on its own clock and was started with a steppable one (only when such a fault was asked for).
     */
    default Optional<StoreClock> storeClock() {
        return Optional.empty();
    }

    /**
     * How far the store's clock may step forward during a lease without breaking exclusion (the nodes'
     * {@code safetyMargin + leaseTtl * maxClockDrift}); zero where the store's clock does not end leases.
     */
    default Duration storeClockMargin() {
        return Duration.ZERO;
    }

    /** The node id of node {@code index} (0-based), as the node prints it in its events. */
    String nodeId(int index);

    /** The backend-specific arguments of node {@code index}: {@code --backend …} and what goes with it. */
    List<String> nodeArgs(int index);

    /** Whether the nodes share a store that keeps work items ({@code PUT /work/items/{id}}). */
    boolean hasItems();

    /**
     * Whether the work items live in the nodes' own memory (a serverless backend's replicated work store) rather than in
     * a store: a restarted node then comes back empty and says {@code work-replica-ready} once it holds them again.
     */
    default boolean itemsInNodeMemory() {
        return false;
    }

    /** Whether fenced writes go to the store's own fenced register (else to the harness's fenced resource). */
    boolean fencesInStore();

    /** How long after the faults heal a leader must exist, at most: the documented bound the run checks. */
    Duration leaderBound();

    /** Lease-like validity of a leadership on this backend; a paused leader is frozen for longer than this. */
    Duration leaseTtl();

    /**
     * Readies the store for a trial of {@code fault}, before the harness waits for a leader: a replicated store gets
     * its replicas back in place after an earlier failover. Returns true if the nodes were moved to a fresh store, so
     * that no leadership held before counts and the harness waits for a leader elected there.
     */
    default boolean beforeTrial(FaultKind fault) {
        return false;
    }

    /**
     * What the run's fixed hold ranges (a hand-over's 0.5-1.5 s, a killed node's 0.5-3 s, ...) are multiplied by: the
     * target's lease over the 2 s lease they were chosen for. Holds given in leases scale with the lease anyway.
     */
    default double holdScale() {
        return 1.0;
    }

    /** Takes what a data-loss fault will restore later (a snapshot, an append-only file mark, a backup). */
    default void prepare(FaultKind fault) {
    }

    /**
     * Whether every node must be down while {@code fault} is injected: a restored leader-record file only loses terms
     * if no running process remembers them, so that fault is a restore of the whole group.
     */
    default boolean needsNodesDown(FaultKind fault) {
        return false;
    }

    /**
     * Injects a store fault. {@code target} is the node whose link to the store a per-node fault (blackhole, reset)
     * cuts. Data-loss faults are injected whole here (kill, restore, start) and have nothing left to heal.
     */
    void inject(FaultKind fault, int target, Duration latency);

    /** Ends a store fault injected by {@link #inject}. */
    void heal(FaultKind fault);

    /** Stops every server the target started. */
    @Override
    void close();
}
