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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisStoreOptions.Builder#waitReplicas}: an acquire, renew or fenced write counts only once enough replicas
 * acknowledged it, and what the primary applied stays there when they did not (the option narrows the replication
 * window, it does not undo writes). On a private Sentinel topology whose replicas can be made to fall behind.
 */
class RedisSentinelReplicaAcknowledgementTest {

    private static final String GROUP = "acknowledged";
    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void acquireAndRenewFailWhileNoReplicaAcknowledgesAndSucceedOnceOneDoes() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start();
                RedisStore store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.sentinelUri())
                        .waitReplicas(1, Duration.ofMillis(300)).build())) {
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

    @Test
    void aFencedWriteNoReplicaReceivedIsNotReportedAppliedNorReadFromAServerWithoutReplicas() {
        String waiting = "&" + ReplicaWaitQuery.REPLICAS + "=1&" + ReplicaWaitQuery.TIMEOUT + "=300ms";
        try (RedisSentinelTopology redis = RedisSentinelTopology.start();
                RedisStore store = RedisStore.connect(redis.sentinelUri() + waiting);
                RedisStore unwaiting = RedisStore.connect(redis.sentinelUri())) {
            long term = granted(get(acquire(store, "n1")));
            assertThat(get(store.registers().fencedWrite(GROUP, "register", "n1", term, bytes("first"))).accepted())
                    .isTrue();

            int primary = redis.primaryNode();
            List<Integer> replicas = List.of(0, 1, 2).stream().filter(i -> i != primary).toList();
            replicas.forEach(redis::pauseReplication);

            assertThat(failure(store.registers().fencedWrite(GROUP, "register", "n1", term, bytes("second"))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("fenced write to register on redis-sentinel://")
                    .hasMessageContaining("acknowledged by 0 of the 1 replicas required within 300 ms");
            assertThat(failure(store.maps().fencedPut(GROUP, "items", "a", "n1", term, bytes("x"))))
                    .isInstanceOf(StoreException.class).hasMessageContaining("fenced put to map items on ")
                    .hasMessageContaining("acknowledged by 0");
            assertThat(failure(store.maps().fencedRemove(GROUP, "items", "a", "n1", term)))
                    .isInstanceOf(StoreException.class).hasMessageContaining("fenced remove from map items on ");
            assertThat(get(store.registers().fencedWrite(GROUP, "register", "n1", term - 1, bytes("stale"))))
                    .as("a refused write changed nothing, so it waits for no replica").extracting(r -> r.accepted())
                    .isEqualTo(false);
            assertThat(get(unwaiting.registers().fencedWrite(GROUP, "register", "n1", term, bytes("third")))
                    .accepted()).as("without the option the same write is reported applied").isTrue();
            assertThat(failure(store.registers().fencedRead(GROUP, "register"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("fenced read of register on redis-sentinel://")
                    .hasMessageContaining("answered by a server that 0 of the 1 replicas required followed");
            assertThat(failure(store.maps().mapGet(GROUP, "items", "a"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("read map items on ");
            assertThat(failure(store.maps().mapEntries(GROUP, "items"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("list map items on ");
            assertThat(get(unwaiting.registers().fencedRead(GROUP, "register"))).as("without the option it is read")
                    .isPresent();

            replicas.forEach(redis::resumeReplication);
            redis.awaitReplicasConnected();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> get(store.registers()
                    .fencedWrite(GROUP, "register", "n1", term, bytes("fourth"))).accepted());
            assertThat(new String(get(store.registers().fencedRead(GROUP, "register")).orElseThrow().value(),
                    StandardCharsets.UTF_8)).isEqualTo("fourth");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
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
