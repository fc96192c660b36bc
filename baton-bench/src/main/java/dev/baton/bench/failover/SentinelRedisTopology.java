package dev.baton.bench.failover;

import dev.baton.testkit.RedisSentinelTopology;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Redis Sentinel: a primary, two replicas and three Sentinels ({@link RedisSentinelTopology}, a node is down after
 * 1 s without an answer). Its failover is a SIGKILL of the primary and the Sentinels' promotion of a replica; the
 * killed node then returns as a replica of the new primary.
 */
final class SentinelRedisTopology implements StoreTopology {

    private static final long FAILOVER_SPACING_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final RedisSentinelTopology redis;
    private int killed = -1;
    private InetSocketAddress before;
    private InetSocketAddress primary;
    private long failedAt;

    private SentinelRedisTopology(RedisSentinelTopology redis) {
        this.redis = redis;
    }

    static StoreTopology start() {
        return new SentinelRedisTopology(RedisSentinelTopology.start());
    }

    @Override
    public String name() {
        return "redis-sentinel";
    }

    @Override
    public String describe() {
        return "Redis Sentinel: one primary, two replicas, three Sentinels (quorum 2, down-after-milliseconds 1000)";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of the primary; the Sentinels promote a replica";
    }

    @Override
    public String uri() {
        return redis.sentinelUri();
    }

    @Override
    public void killPrimary() {
        before = redis.primary();
        killed = redis.primaryNode();
        redis.killNode(killed);
    }

    @Override
    public void recover() {
        primary = redis.awaitNewPrimary(before);
        failedAt = System.nanoTime();
    }

    @Override
    public void restore() {
        if (killed < 0) {
            return;
        }
        redis.restartNode(killed);
        // What a Sentinel sends a former primary it finds running again: follow the new primary.
        redis.command(killed, "REPLICAOF", primary.getHostString(), Integer.toString(primary.getPort()));
        redis.command(killed, "CONFIG", "REWRITE");
        killed = -1;
        redis.awaitSentinelsSettled();
        redis.awaitReplicasConnected();
        // A Sentinel does not retry a failover of the same primary within twice its failover timeout (5 s); a
        // primary killed sooner can have the Sentinels fail over on different views.
        long wait = failedAt + FAILOVER_SPACING_NANOS - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    @Override
    public void close() {
        redis.close();
    }
}
