package dev.baton.redis;

import static dev.baton.redis.RedisClusterElectionTest.shardSubscribers;
import static dev.baton.redis.StoreCalls.failure;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Lease;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.testkit.RedisClusterTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster, lease notices and bus messages travel over sharded pub/sub: a watcher is an {@code SSUBSCRIBE}
 * on the master of the group's slot (no node has a classic subscriber), a bus channel is subscribed on the master
 * of its own slot, and {@code waitReplicas} waits for the replica of the group's master. One private cluster for
 * the class; each test uses its own group.
 */
class RedisClusterNoticesTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void handoverNoticesArriveOverShardedPubSubFromTheGroupsMaster() {
        String group = "handover";
        String channel = GroupKeys.of("", group).noticesChannel();
        try (RedisStore follower = RedisStore.connect(uri()); RedisStore leader = RedisStore.connect(uri())) {
            List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
            Subscription watch = follower.leases().watch(group, heard::add);
            get(watch.ready());
            int master = cluster.masterOf(channel);
            assertThat(shardSubscribers(cluster, master, channel)).isEqualTo(1);
            assertThat(IntStream.range(0, 6).filter(cluster::isNodeRunning)
                    .mapToLong(node -> classicSubscribers(node, channel)).sum()).as("classic subscribers").isZero();

            long term = ((AcquireResult.Granted) get(leader.leases().acquire(group, NodeInfo.of("n1", "t"), TTL)))
                    .term();
            assertThat(get(leader.leases().release(group, "n1", term))).isTrue();

            await().atMost(SETTLE).until(() -> heard.size() == 2);
            assertThat(heard).containsExactly(new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "n1", term),
                    new LeaseNotice(LeaseNotice.Kind.RELEASED, "n1", term));
            watch.close();
            await().atMost(SETTLE).until(() -> shardSubscribers(cluster, master, channel) == 0);
        }
    }

    @Test
    void busMessagesAreShardedToTheMasterOfTheirChannelsSlot() {
        String channel = "worker:master:commands";
        try (RedisStore subscriber = RedisStore.connect(uri()); RedisStore publisher = RedisStore.connect(uri())) {
            List<String> received = new CopyOnWriteArrayList<>();
            Subscription subscription = subscriber.bus().subscribe(channel,
                    bytes -> received.add(new String(bytes, StandardCharsets.UTF_8)));
            get(subscription.ready());
            assertThat(shardSubscribers(cluster, cluster.masterOf(channel), channel)).isEqualTo(1);

            assertThat(get(publisher.bus().publish(channel, "regenerate".getBytes(StandardCharsets.UTF_8))))
                    .isEqualTo(1L);
            await().atMost(SETTLE).until(() -> received.contains("regenerate"));
            subscription.close();
        }
    }

    @Test
    void waitReplicasWaitsForTheReplicaOfTheGroupsMaster() {
        String group = "acknowledged";
        int master = cluster.masterOf(GroupKeys.of("", group).term());
        int replica = cluster.replicaOf(master);
        try (RedisStore store = RedisStore.connect(RedisStoreOptions.builder().uri(uri())
                .waitReplicas(1, Duration.ofMillis(300)).build())) {
            long term = ((AcquireResult.Granted) get(store.leases().acquire(group, NodeInfo.of("n1", "t"), TTL)))
                    .term();
            assertThat(get(store.leases().renew(group, "n1", term, TTL))).isTrue();

            cluster.pauseReplication(replica);
            try {
                assertThat(failure(store.leases().renew(group, "n1", term, TTL))).isInstanceOf(StoreException.class)
                        .hasMessageContaining("renew on redis-cluster://")
                        .hasMessageContaining("acknowledged by 0 of the 1 replicas required within 300 ms");
                assertThat(get(store.leases().read(group))).as("the renewal stays on the master").get()
                        .extracting(Lease::owner).isEqualTo("n1");
            } finally {
                cluster.resumeReplication(replica);
            }
            await().atMost(SETTLE).ignoreExceptions()
                    .until(() -> get(store.leases().renew(group, "n1", term, TTL)));
        }
    }

    private static String uri() {
        return RedisClusterConformanceTest.clusterUri(cluster);
    }

    private static long classicSubscribers(int node, String channel) {
        Object reply = cluster.command(node, "PUBSUB", "NUMSUB", channel);
        return reply instanceof List<?> pair && pair.size() == 2 ? Long.parseLong(String.valueOf(pair.get(1))) : 0;
    }
}
