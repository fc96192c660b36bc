package dev.baton.bench.failover;

import dev.baton.testkit.RedisClusterTopology;
import java.util.stream.Collectors;

/**
 * A Redis Cluster: three masters, one replica each ({@link RedisClusterTopology}, a node is failing after 1 s without
 * an answer, {@code cluster-node-timeout 1000}). Every key of the group sits in one slot under its hash tag; the
 * failover is a SIGKILL of the master serving that slot, and the election of its replica by the other masters. The
 * killed node then returns as a replica of its replacement, so the next sample kills the other one of the pair.
 */
final class ClusterRedisTopology implements StoreTopology {

    /** A key of the benchmark's group: its hash tag decides the slot, and so the master that serves the group. */
    private static final String GROUP_KEY = "{" + FailoverScenario.GROUP + "}:master";

    private final RedisClusterTopology redis;
    private int killed = -1;
    private int replacement = -1;

    private ClusterRedisTopology(RedisClusterTopology redis) {
        this.redis = redis;
    }

    static StoreTopology start() {
        return new ClusterRedisTopology(RedisClusterTopology.start());
    }

    @Override
    public String name() {
        return "redis-cluster";
    }

    @Override
    public String describe() {
        return "Redis Cluster: three masters with one replica each (cluster-node-timeout 1000, "
                + "cluster-replica-validity-factor 0)";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of the master serving the group's slot; the cluster elects its replica";
    }

    @Override
    public String uri() {
        return "redis-cluster://" + redis.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }

    @Override
    public void killPrimary() {
        killed = redis.masterOf(GROUP_KEY);
        redis.killNode(killed);
    }

    @Override
    public void recover() {
        replacement = redis.awaitFailover(killed);
    }

    @Override
    public void restore() {
        if (killed < 0) {
            return;
        }
        // A restarted former master learns it was replaced and follows its replacement, with a full resync.
        redis.restartNode(killed);
        redis.awaitReplicaInSync(killed);
        redis.awaitReplicated(replacement);
        killed = -1;
    }

    @Override
    public void close() {
        redis.close();
    }
}
