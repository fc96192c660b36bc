package dev.baton.bench.failover;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A store deployment the store-failover scenario measures, by the name it has in the tables ({@code redis},
 * {@code redis-sentinel}, ...): its private servers, the URI a Baton node connects with, and how its primary fails.
 * A single server fails by a crash and a restart on its data; a replicated one by a crash of its primary and the
 * promotion of another server. Another deployment is one class implementing this and one entry in {@link #ALL}.
 */
interface StoreTopology extends AutoCloseable {

    /** Every topology the scenario knows, by name, in table order: each replicated one after its single server. */
    Map<String, Supplier<StoreTopology>> ALL = topologies();

    /** The name in the tables and in {@code --candidates}. */
    String name();

    /** A markdown sentence: what runs, and what its store failover is. */
    String describe();

    /** What the store failover is here, for the table's notes (e.g. "primary SIGKILLed, a replica promoted"). */
    String failoverNote();

    /** The URI Baton's store connects to ({@code redis-sentinel://…}, a multi-host {@code postgresql://…}, ...). */
    String uri();

    /**
     * Whether the store reports what is left of a lease only coarsely (etcd: whole seconds). The scenario then takes a
     * crashed leader's lease to end one TTL after the leader sent its last call the store granted, instead of reading
     * it from the store.
     */
    default boolean coarseRemaining() {
        return false;
    }

    /** Kills the store's primary (SIGKILL) and returns once its processes are gone. */
    void killPrimary();

    /**
     * After {@link #killPrimary()}: returns once a primary accepts writes again, the restarted server or the server
     * promoted in its place (by the Sentinels, or here, as the failover manager a standby needs).
     */
    void recover();

    /**
     * Brings the deployment back to full strength for the next sample (a replica or standby again), after the nodes
     * have settled on the new primary. Nodes may be moved to a fresh store meanwhile; they elect again there.
     */
    void restore();

    /** Stops every server. */
    @Override
    void close();

    private static Map<String, Supplier<StoreTopology>> topologies() {
        Map<String, Supplier<StoreTopology>> all = new LinkedHashMap<>();
        all.put("redis", SingleServerTopology::redis);
        all.put("redis-sentinel", SentinelRedisTopology::start);
        all.put("redis-cluster", ClusterRedisTopology::start);
        all.put("postgresql", SingleServerTopology::postgresql);
        all.put("postgresql-standby", StandbyPostgresTopology::start);
        all.put("etcd", EtcdTopology::start);
        return all;
    }
}
