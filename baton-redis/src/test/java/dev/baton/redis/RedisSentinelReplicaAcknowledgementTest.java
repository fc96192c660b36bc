package dev.baton.redis;

import static dev.baton.redis.StoreCalls.failure;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.StoreException;
import dev.baton.testkit.RedisSentinelTopology;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisStoreOptions.Builder#acquireReplicas}: an acquire or renew counts only once enough replicas acknowledged
 * it, and the grant the primary applied stays there when they did not (the option narrows the replication window, it
 * does not undo writes). On a private Sentinel topology whose replicas can be made to fall behind.
 */
class RedisSentinelReplicaAcknowledgementTest {

    private static final String GROUP = "acknowledged";
    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void acquireAndRenewFailWhileNoReplicaAcknowledgesAndSucceedOnceOneDoes() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start();
                RedisStore store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.sentinelUri())
                        .acquireReplicas(1, Duration.ofMillis(300)).build())) {
            long term = granted(get(acquire(store, "n1")));
            assertThat(get(store.leases().renew(GROUP, "n1", term, TTL))).isTrue();

            int primary = redis.primaryNode();
            List<Integer> replicas = List.of(0, 1, 2).stream().filter(i -> i != primary).toList();
            replicas.forEach(redis::pauseReplication);

            assertThat(failure(store.leases().renew(GROUP, "n1", term, TTL))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("renew on redis-sentinel://")
                    .hasMessageContaining("acknowledged by 0 of the 1 replicas required within 300 ms");
            assertThat(get(store.leases().release(GROUP, "n1", term))).isTrue();
            assertThat(failure(acquire(store, "n2"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("acquire on redis-sentinel://").hasMessageContaining("acknowledged by 0");
            assertThat(get(store.leases().read(GROUP))).as("the grant stays on the primary").get()
                    .extracting(Lease::owner).isEqualTo("n2");

            replicas.forEach(redis::resumeReplication);
            redis.awaitReplicasConnected();

            long next = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> granted(get(acquire(store, "n2"))), t -> t > 0);
            assertThat(next).isGreaterThan(term);
            assertThat(get(store.leases().renew(GROUP, "n2", next, TTL))).isTrue();
        }
    }

    private static CompletableFuture<AcquireResult> acquire(RedisStore store, String node) {
        return store.leases().acquire(GROUP, NodeInfo.of(node, "test"), TTL);
    }

    private static long granted(AcquireResult result) {
        if (!(result instanceof AcquireResult.Granted granted)) {
            throw new AssertionError("not granted: " + result);
        }
        return granted.term();
    }
}
