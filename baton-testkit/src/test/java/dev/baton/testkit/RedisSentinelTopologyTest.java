package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One primary, two replicas and three Sentinels, started privately; each test takes a few seconds. */
@Timeout(60)
class RedisSentinelTopologyTest {

    private static final Duration GENEROUS = Duration.ofSeconds(20);
    private static final Duration PROBE = Duration.ofMillis(500);

    @Test
    void replicasFollowThePrimaryAndAForcedFailoverGivesANewPrimaryTheSentinelsAgreeOn() {
        List<InetSocketAddress> everything = new ArrayList<>();
        try (RedisSentinelTopology redis = RedisSentinelTopology.start()) {
            everything.addAll(redis.nodeAddresses());
            everything.addAll(redis.sentinelAddresses());
            InetSocketAddress first = redis.primary();
            assertThat(first).isEqualTo(redis.nodeAddresses().get(0));
            assertThat(redis.masterName()).isEqualTo(RedisSentinelTopology.MASTER_NAME);
            assertThat(redis.sentinelUri()).startsWith("redis-sentinel://127.0.0.1:").endsWith("?sentinelMasterId=baton-primary");

            assertThat(redis.command(0, "SET", "k", "v1")).isEqualTo("OK");
            await().atMost(GENEROUS).until(() -> "v1".equals(redis.command(1, "GET", "k"))
                    && "v1".equals(redis.command(2, "GET", "k")));
            assertThatThrownBy(() -> redis.command(1, "SET", "k", "x")).hasMessageContaining("READONLY");

            // A lagging replica still answers, but misses what the primary takes until it is let go.
            redis.pauseReplication(2);
            assertThat(redis.command(0, "SET", "k", "v2")).isEqualTo("OK");
            await().atMost(GENEROUS).until(() -> "v2".equals(redis.command(1, "GET", "k")));
            assertThat(redis.command(2, "GET", "k")).isEqualTo("v1");
            redis.resumeReplication(2);
            await().atMost(GENEROUS).until(() -> "v2".equals(redis.command(2, "GET", "k")));

            InetSocketAddress next = redis.failover();
            assertThat(next).isNotEqualTo(first).isIn(redis.nodeAddresses());
            assertThat(redis.primary()).isEqualTo(next);
            int primary = redis.primaryNode();
            assertThat(redis.command(primary, "SET", "k", "v3")).isEqualTo("OK");
            // The replica that was not promoted follows the new primary. (The old primary follows too, once the
            // Sentinels next poll it, which may take them ten seconds.)
            int other = 3 - primary;
            await().atMost(GENEROUS).until(() -> "v3".equals(redis.command(other, "GET", "k")));

            // Once every Sentinel is settled (the old primary a replica too, as they all see it), a second forced
            // failover is accepted rather than refused with INPROG or NOGOODSLAVE.
            redis.awaitSentinelsSettled();
            assertThat(redis.failover()).isNotEqualTo(next).isIn(redis.nodeAddresses());
        }
        assertThat(everything).noneMatch(address -> RespProbe.ping(address.getHostString(), address.getPort(), PROBE));
    }

    @Test
    void sentinelsReplaceAKilledPrimary() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start()) {
            InetSocketAddress first = redis.primary();
            redis.killNode(0);
            assertThat(redis.isNodeRunning(0)).isFalse();

            InetSocketAddress next = redis.awaitNewPrimary(first);

            assertThat(next).isIn(redis.nodeAddresses().subList(1, 3));
            int primary = redis.primaryNode();
            assertThat(redis.command(primary, "SET", "k", "after")).isEqualTo("OK");
            redis.awaitReplicasConnected();
            // WAIT returns once the replica acknowledged the write (or after 5 s with 0).
            assertThat(redis.command(primary, "WAIT", "1", "5000")).isEqualTo(1L);
            assertThat(redis.command(3 - primary, "GET", "k")).isEqualTo("after");
        }
    }

    @Test
    void aPrimaryThatNeedsAReplicaToWriteRefusesWritesOnceItsReplicasFallAway() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.builder().downAfter(Duration.ofMillis(500))
                .failoverTimeout(Duration.ofSeconds(2)).minReplicasToWrite(1, Duration.ofSeconds(1)).start()) {
            assertThat(redis.failoverTimeout()).isEqualTo(Duration.ofSeconds(2));
            int primary = redis.primaryNode();
            assertThat(redis.command(primary, "SET", "k", "v1")).isEqualTo("OK");

            List<Integer> replicas = List.of(0, 1, 2).stream().filter(i -> i != primary).toList();
            replicas.forEach(redis::pauseReplication);
            await().atMost(GENEROUS).ignoreExceptions().untilAsserted(() ->
                    assertThatThrownBy(() -> redis.command(primary, "SET", "k", "v2"))
                            .hasMessageContaining("NOREPLICAS"));

            replicas.forEach(redis::resumeReplication);
            redis.awaitReplicasConnected();
            await().atMost(GENEROUS).ignoreExceptions()
                    .until(() -> "OK".equals(redis.command(primary, "SET", "k", "v3")));
        }
    }

    @Test
    void badTimingsAreRefusedWithOneLine() {
        assertThatThrownBy(() -> RedisSentinelTopology.builder().downAfter(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("downAfter must be at least 100 ms, was PT0.01S");
        assertThatThrownBy(() -> RedisSentinelTopology.builder().failoverTimeout(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("failoverTimeout must be at least 500 ms, was null");
        assertThatThrownBy(() -> RedisSentinelTopology.builder().minReplicasToWrite(3, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minReplicasToWrite must be between 0 and 2, was 3");
        assertThatThrownBy(() -> RedisSentinelTopology.builder().minReplicasToWrite(1, Duration.ofMillis(1500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minReplicasMaxLag must be whole seconds, was PT1.5S");
    }
}
