package dev.baton.server.chaos;

import java.time.Duration;
import java.util.List;

/**
 * A target whose nodes share one replicated store deployment reached through the store's own URI (a Redis Cluster,
 * a Sentinel deployment, a PostgreSQL primary with its standby, an etcd cluster): the nodes are {@code n1}, {@code n2},
 * ..., their arguments come from the store's timings, and work items and fenced writes live in the store. What is
 * left to a subclass is its deployment: the URI each node is given, and the store's own faults.
 */
abstract class ReplicatedStoreTarget implements ChaosTarget {

    private final String name;
    private final List<FaultKind> faults;
    /** The lease and its intervals the nodes run with. */
    final StoreTimings timings;

    ReplicatedStoreTarget(String name, List<FaultKind> faults, StoreTimings timings) {
        this.name = name;
        this.faults = List.copyOf(faults);
        this.timings = timings;
    }

    /** The backend URI node {@code index} is given. */
    abstract String storeUri(int index);

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final List<FaultKind> faults() {
        return faults;
    }

    @Override
    public final String nodeId(int index) {
        return "n" + (index + 1);
    }

    @Override
    public final List<String> nodeArgs(int index) {
        return timings.nodeArgs(storeUri(index), nodeId(index));
    }

    @Override
    public final boolean hasItems() {
        return true;
    }

    @Override
    public final boolean fencesInStore() {
        return true;
    }

    @Override
    public final Duration leaderBound() {
        return timings.leaderBound();
    }

    @Override
    public final Duration leaseTtl() {
        return timings.leaseTtl();
    }

    @Override
    public final double holdScale() {
        return timings.holdScale();
    }
}
