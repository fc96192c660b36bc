package dev.baton.server.chaos;

import dev.baton.testkit.RedisClusterTopology;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A private Redis Cluster (three masters with a replica each) the nodes reach as {@code redis-cluster://} with every
 * cluster node as a seed. Its own faults change which node serves the group's slot while the nodes run: the slot's
 * master killed and its replica promoted, a manual {@code CLUSTER FAILOVER}, and the slot migrated to another master.
 * The nodes connect straight to the cluster nodes (a cluster client learns their addresses from the cluster itself),
 * so there are no per-node proxied links and no link faults.
 */
final class RedisClusterTarget extends ReplicatedStoreTarget {

    static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.CLUSTER_MASTER_KILL, FaultKind.CLUSTER_FAILOVER, FaultKind.CLUSTER_SLOT_MIGRATION);
    private static final int CLUSTER_NODES = 6;

    private final String groupKey;
    private final RedisClusterTopology cluster;
    private final String uri;
    private int killed = -1;
    private RedisClusterTopology.SlotMigration migration;

    /**
     * @param group the group the nodes run in: the faults aim at the master that serves its slot
     */
    RedisClusterTarget(StoreTimings timings, String group) {
        super("redis-cluster", FAULTS, timings);
        this.groupKey = "{" + group + "}:term";
        this.cluster = RedisClusterTopology.start();
        this.uri = "redis-cluster://" + cluster.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }

    @Override
    String storeUri(int index) {
        return uri;
    }

    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        int master = cluster.masterOf(groupKey);
        switch (fault) {
            case CLUSTER_MASTER_KILL -> {
                killed = master;
                cluster.killNode(master);
            }
            case CLUSTER_FAILOVER -> cluster.failover(cluster.replicaOf(master));
            case CLUSTER_SLOT_MIGRATION -> {
                int next = IntStream.range(0, CLUSTER_NODES).filter(i -> i != master && cluster.isMaster(i))
                        .findFirst().orElseThrow(() -> new IllegalStateException("no other master to move to"));
                migration = cluster.beginSlotMigration(groupKey, next);
            }
            default -> throw new IllegalArgumentException("not a Redis Cluster fault: " + fault);
        }
    }

    /**
     * A killed master's replacement is awaited and the old master restarted as its replica, in sync before the next
     * trial (so a later failover has a replica with the data); a half-moved slot is moved the rest of the way.
     */
    @Override
    public void heal(FaultKind fault) {
        switch (fault) {
            case CLUSTER_MASTER_KILL -> {
                if (killed >= 0) {
                    cluster.awaitFailover(killed);
                    cluster.restartNode(killed);
                    cluster.awaitReplicaInSync(killed);
                    killed = -1;
                }
            }
            case CLUSTER_SLOT_MIGRATION -> {
                if (migration != null) {
                    migration.moveKeys();
                    migration.finish();
                    migration = null;
                }
            }
            default -> { }
        }
    }

    @Override
    public void close() {
        cluster.close();
    }
}
