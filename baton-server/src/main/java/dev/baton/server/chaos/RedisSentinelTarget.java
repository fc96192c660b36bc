package dev.baton.server.chaos;

import dev.baton.testkit.RedisSentinelTopology;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * A private Redis Sentinel deployment (one primary, two replicas, three Sentinels; {@link RedisSentinelTopology}),
 * which every node reaches through a {@code redis-sentinel://} URI: the node asks the Sentinels for the primary and
 * follows it across a failover. Beside the node faults, the store fails over the three ways Sentinel does: the primary
 * crashes and a replica is promoted, a replica that fell behind is promoted, and a forced switch leaves the old
 * primary running for a while.
 *
 * <p>The topology is built once and reset cheaply between trials: a former primary is made a replica of the new one
 * as soon as the failover is over (as the Sentinels would a few seconds later), and a replica that was held behind
 * replicates again. There are no per-node links here: the data nodes' addresses come from the Sentinels, so a proxy
 * in front of them would be bypassed.
 *
 * <p>With {@code --wait-replicas N} the nodes' store URI asks for {@code WAIT N} after each acquire, renewal and
 * fenced write, and every data node runs with {@code min-replicas-to-write N}, so that a primary cut off from its
 * replicas, or demoted without knowing it yet, acknowledges no write.
 */
final class RedisSentinelTarget extends ReplicatedStoreTarget {

    private static final Set<FaultKind> FAILOVERS = EnumSet.of(FaultKind.SENTINEL_PRIMARY_KILLED,
            FaultKind.SENTINEL_LAGGING_PROMOTED, FaultKind.SENTINEL_FAILOVER);
    static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.SENTINEL_PRIMARY_KILLED, FaultKind.SENTINEL_LAGGING_PROMOTED, FaultKind.SENTINEL_FAILOVER);

    /** How long a store waits for its replicas: well below the 1 s lease and the renewal interval. */
    private static final Duration WAIT_REPLICAS_TIMEOUT = Duration.ofMillis(200);
    /** Lag a replica may have and still count for {@code min-replicas-to-write}: replicas acknowledge every second. */
    private static final Duration MIN_REPLICAS_MAX_LAG = Duration.ofSeconds(2);

    private final RedisSentinelTopology redis;
    private final String uri;
    private final List<Integer> lagging = new ArrayList<>();
    private InetSocketAddress primaryBefore;
    private int killed = -1;
    private long lastFailover;

    RedisSentinelTarget(StoreTimings timings, ChaosRunSettings.SentinelSettings settings) {
        super("redis-sentinel", FAULTS, timings);
        this.redis = startTopology(settings);
        this.uri = redis.sentinelUri() + waitParameters(settings, '&');
    }

/**
     * The deployment {@code settings} ask for: the Sentinels' timings, and with {@code --wait-replicas N} data nodes
     * that refuse writes without N replicas.
     */
    static RedisSentinelTopology startTopology(ChaosRunSettings.SentinelSettings settings) {
        RedisSentinelTopology.Builder topology = RedisSentinelTopology.builder().downAfter(settings.downAfter())
                .failoverTimeout(settings.failoverTimeout());
        if (settings.waitReplicas() > 0) {
            topology.minReplicasToWrite(settings.waitReplicas(), MIN_REPLICAS_MAX_LAG);
        }
        return topology.start();
    }

    /** The store URI's {@code waitReplicas} parameters after {@code separator}, or nothing without the option. */
    static String waitParameters(ChaosRunSettings.SentinelSettings settings, char separator) {
        return settings.waitReplicas() > 0 ? separator + "waitReplicas=" + settings.waitReplicas()
                + "&waitReplicasTimeout=" + WAIT_REPLICAS_TIMEOUT.toMillis() + "ms" : "";
    }

        @Override
    String storeUri(int index) {
        return uri;
    }

    /**
     * A failover needs the previous one well behind it, both replicas replicating from the primary, as a healthy
     * deployment has them, and every Sentinel agreeing on the primary and ready to promote a replica. The spacing is
     * the Sentinels' own: one does not retry a failover of the same primary within twice the failover timeout, and a
     * primary killed sooner after the last failover (with the node killed before it just back) had the Sentinels
     * fail over on different views in the harness, and settle on a primary other than the one most of them named.
     */
    @Override
    public boolean beforeTrial(FaultKind fault) {
        if (FAILOVERS.contains(fault)) {
            readyForFailover(redis, lastFailover);
        }
        return false;
    }

    /**
     * Waits until the Sentinels will fail over again (twice their failover timeout after the failover at
     * {@code lastFailover}, a {@link System#nanoTime()} reading or 0 for none), every Sentinel has settled on the
     * primary and both replicas follow it.
     */
    static void readyForFailover(RedisSentinelTopology redis, long lastFailover) {
        long wait = lastFailover + redis.failoverTimeout().multipliedBy(2).toNanos() - System.nanoTime();
        if (lastFailover != 0 && wait > 0) {
            LockSupport.parkNanos(wait);
        }
        redis.awaitSentinelsSettled();
        redis.awaitReplicasConnected();
    }

    /** Holds both replicas behind, before the lease changes hands on the primary alone. */
    @Override
    public void prepare(FaultKind fault) {
        if (fault == FaultKind.SENTINEL_LAGGING_PROMOTED) {
            int primary = redis.primaryNode();
            for (int node = 0; node < redis.nodeAddresses().size(); node++) {
                if (node != primary) {
                    redis.pauseReplication(node);
                    lagging.add(node);
                }
            }
        }
    }

    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        primaryBefore = redis.primary();
        switch (fault) {
            case SENTINEL_PRIMARY_KILLED, SENTINEL_LAGGING_PROMOTED -> {
                killed = redis.primaryNode();
                redis.killNode(killed);
            }
            case SENTINEL_FAILOVER -> redis.failover();
            default -> throw new IllegalArgumentException("not a Redis Sentinel fault: " + fault);
        }
    }

    /**
     * Waits until the Sentinels agree on the new primary, then brings the deployment back to one primary and two
     * replicas: the killed node restarts (empty) and the former primary of a forced switch becomes a replica, both of
     * the new primary; replicas held behind replicate again.
     */
    @Override
    public void heal(FaultKind fault) {
        InetSocketAddress primary = redis.awaitNewPrimary(primaryBefore);
        lagging.forEach(redis::resumeReplication);
        lagging.clear();
        int former = indexOf(primaryBefore);
        if (killed >= 0) {
            redis.restartNode(killed);
            killed = -1;
        }
        // What a Sentinel sends a former primary it finds running, without waiting for it to look: follow the new
        // primary, keep that across a restart, and drop the clients, so that they ask the Sentinels again.
        redis.command(former, "REPLICAOF", primary.getHostString(), Integer.toString(primary.getPort()));
        redis.command(former, "CONFIG", "REWRITE");
        redis.command(former, "CLIENT", "KILL", "TYPE", "normal");
        redis.command(former, "CLIENT", "KILL", "TYPE", "pubsub");
        lastFailover = System.nanoTime();
    }

    @Override
    public void close() {
        redis.close();
    }

    private int indexOf(InetSocketAddress address) {
        List<InetSocketAddress> nodes = redis.nodeAddresses();
        int index = nodes.indexOf(address);
        if (index < 0) {
            throw new IllegalStateException(address + " is not a data node of " + redis);
        }
        return index;
    }
}
