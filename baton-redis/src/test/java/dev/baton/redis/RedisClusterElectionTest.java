package dev.baton.redis;

import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.store.AcquireResult;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.testkit.RedisClusterTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Elections on a Redis Cluster (three masters with a replica each, private) while the master that serves the
 * group's slot changes: killed and replaced by its replica, handed over by a manual {@code CLUSTER FAILOVER}, or the
 * slot migrated to another master in the middle of an election. Through each, every term is held by one node only,
 * the election goes on on the new master under a term above every earlier one, a deposed leader's term is refused,
 * and the followers' sharded notice subscriptions move to the new master. Awaitility bounds are generous correctness
 * bounds, never performance claims.
 */
class RedisClusterElectionTest {

    private static final String GROUP = "cluster";
    private static final ElectionConfig FAST = ElectionConfig.fast();
    private static final Duration SETTLE = Duration.ofSeconds(30);
    /** A lease granted before replication is paused; it must expire by itself on the promoted replica. */
    private static final Duration BRIEF = Duration.ofSeconds(1);
    private static final GroupKeys KEYS = GroupKeys.of("", GROUP);

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes() {
        nodes.forEach(Node::close);
    }

    @Test
    void anElectionGoesOnAfterTheGroupsMasterIsKilledUnderAHigherTermAndTheOldTermIsFenced() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            startNodes(cluster, "a", "b", "c");
            Node first = awaitSingleLeader();
            long oldTerm = first.term();
            assertThat(write(first.store, first.id, oldTerm)).isTrue();
            int master = cluster.masterOf(KEYS.term());
            cluster.awaitReplicated(master);

            cluster.killNode(master);
            int promoted = cluster.awaitFailover(master);
            first.election.close();

            Node next = awaitLeaderIssuedBy(cluster, promoted, first);
            long newTerm = next.term();
            assertThat(newTerm).isGreaterThan(oldTerm);
            assertOneHolderPerTerm();
            assertThat(issuedTerms()).allMatch(term -> term <= newTerm);
            assertThat(write(next.store, first.id, oldTerm)).as("the deposed leader's term").isFalse();
            assertThat(write(next.store, next.id, newTerm)).isTrue();
            // The followers' notice subscriptions followed the slot to the promoted replica.
            await().atMost(SETTLE).until(() -> shardSubscribers(cluster, promoted, KEYS.noticesChannel()) >= 1);
        }
    }

    @Test
    void aManualFailoverOfTheGroupsMasterKeepsOneLeaderPerTerm() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            startNodes(cluster, "a", "b", "c");
            Node first = awaitSingleLeader();
            long oldTerm = first.term();
            int replica = cluster.replicaOf(cluster.masterOf(KEYS.term()));

            cluster.failover(replica);
            await().atMost(SETTLE).until(() -> shardSubscribers(cluster, replica, KEYS.noticesChannel()) >= 2);
            first.election.stepDown();

            Node next = awaitLeaderIssuedBy(cluster, replica, null);
            assertThat(next.term()).isGreaterThan(oldTerm);
            assertOneHolderPerTerm();
            if (next != first) {
                assertThat(write(next.store, first.id, oldTerm)).as("the deposed leader's term").isFalse();
            }
        }
    }

    @Test
    void aSlotMigrationDuringAnElectionKeepsOneLeaderPerTerm() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            startNodes(cluster, "a", "b", "c");
            Node first = awaitSingleLeader();
            long oldTerm = first.term();
            int source = cluster.masterOf(KEYS.term());
            int target = (source + 1) % 3;

            // The leader hands over while the slot is half moved: the source answers ASK for keys it no longer
            // holds, and scripts touching keys on both sides fail until the move completes; the election retries.
            RedisClusterTopology.SlotMigration migration = cluster.beginSlotMigration(KEYS.term(), target);
            first.election.close();
            migration.moveKeys();
            migration.finish();

            Node next = awaitLeaderIssuedBy(cluster, target, first);
            assertThat(next.term()).isGreaterThan(oldTerm);
            assertOneHolderPerTerm();
            assertThat(write(next.store, first.id, oldTerm)).as("the deposed leader's term").isFalse();
            assertThat(write(next.store, next.id, next.term())).isTrue();
            assertThat(cluster.command(source, "CLUSTER", "COUNTKEYSINSLOT",
                    Integer.toString(migration.slot()))).isEqualTo(0L);
            await().atMost(SETTLE).until(() -> shardSubscribers(cluster, target, KEYS.noticesChannel()) >= 1);
        }
    }

    @Test
    void aPromotedReplicaThatLaggedStillIssuesATermAboveEveryEarlierOne() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start();
                RedisStore store = RedisStore.connect(RedisClusterConformanceTest.clusterUri(cluster))) {
            long replicated = acquire(store, "n1", BRIEF);
            int master = cluster.masterOf(KEYS.term());
            int replica = cluster.replicaOf(master);
            cluster.awaitReplicated(master);
            cluster.pauseReplication(replica);

            long highest = replicated;
            for (String node : List.of("n2", "n3", "n2", "n3")) {
                long term = await().atMost(SETTLE).ignoreExceptions().until(() -> acquire(store, node, BRIEF),
                        t -> t > 0);
                assertThat(term).isGreaterThan(highest);
                highest = term;
                get(store.leases().release(GROUP, node, term));
            }
            long lost = acquire(store, "n4", StoreCalls.LONG);
            assertThat(lost).isGreaterThan(highest);
            assertThat(write(store, "n4", lost)).isTrue();

            cluster.killNode(master);
            assertThat(cluster.awaitFailover(master)).isEqualTo(replica);
            assertThat(cluster.command(replica, "GET", KEYS.term())).as("the promoted replica's stale counter")
                    .isEqualTo(Long.toString(replicated));

            long next = await().atMost(SETTLE).ignoreExceptions().until(() -> acquire(store, "n5", BRIEF),
                    t -> t > 0);
            assertThat(next).isGreaterThan(lost);
            assertThat(cluster.command(replica, "GET", KEYS.term())).isEqualTo(Long.toString(next));
            assertThat(write(store, "n4", lost)).as("a write under the term the failover lost").isFalse();
            assertThat(write(store, "n5", next)).isTrue();
        }
    }

    private void startNodes(RedisClusterTopology cluster, String... ids) {
        for (String id : ids) {
            Node node = new Node(cluster, id);
            nodes.add(node);
            node.election.start();
        }
    }

    private Node awaitSingleLeader() {
        await().atMost(FAST.leaseTtl().plus(SETTLE)).until(() ->
                nodes.stream().filter(n -> n.election.isLeader()).count() == 1);
        return nodes.stream().filter(n -> n.election.isLeader()).findFirst().orElseThrow();
    }

    /** A node other than {@code except} leading under the term node {@code master}'s counter holds. */
    private Node awaitLeaderIssuedBy(RedisClusterTopology cluster, int master, Node except) {
        await().atMost(SETTLE).ignoreExceptions().until(() -> nodes.stream().anyMatch(n -> n != except
                && n.election.leadership().map(l -> Long.toString(l.term())
                        .equals(cluster.command(master, "GET", KEYS.term()))).orElse(false)));
        return nodes.stream().filter(n -> n != except && n.election.isLeader()).findFirst().orElseThrow();
    }

    /** No term was acquired by two nodes. */
    private void assertOneHolderPerTerm() {
        Map<Long, Set<String>> holders = nodes.stream().flatMap(n -> n.events.stream()
                        .filter(LeadershipAcquired.class::isInstance)
                        .map(e -> Map.entry(((LeadershipAcquired) e).term(), n.id)))
                .collect(Collectors.groupingBy(Map.Entry::getKey,
                        Collectors.mapping(Map.Entry::getValue, Collectors.toSet())));
        assertThat(holders).as("holders of each term").allSatisfy((term, ids) -> assertThat(ids).hasSize(1));
    }

    private List<Long> issuedTerms() {
        return nodes.stream().flatMap(n -> n.events.stream()).filter(LeadershipAcquired.class::isInstance)
                .map(e -> ((LeadershipAcquired) e).term()).toList();
    }

    /** The granted term, or 0 if the lease is held by someone else. */
    private static long acquire(RedisStore store, String node, Duration ttl) {
        AcquireResult result = get(store.leases().acquire(GROUP, NodeInfo.of(node, "test"), ttl));
        return result instanceof AcquireResult.Granted granted ? granted.term() : 0;
    }

    private static boolean write(RedisStore store, String node, long term) {
        return get(store.registers().fencedWrite(GROUP, "config", node, term,
                node.getBytes(StandardCharsets.UTF_8))).accepted();
    }

    /** Subscribers of a sharded channel on one node ({@code PUBSUB SHARDNUMSUB}). */
    static long shardSubscribers(RedisClusterTopology cluster, int node, String channel) {
        Object reply = cluster.command(node, "PUBSUB", "SHARDNUMSUB", channel);
        return reply instanceof List<?> pair && pair.size() == 2 ? Long.parseLong(String.valueOf(pair.get(1))) : 0;
    }

    /** One node: its own store on the cluster, its own election, the events it saw. */
    private static final class Node {
        final String id;
        final RedisStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

        Node(RedisClusterTopology cluster, String id) {
            this.id = id;
            store = RedisStore.connect(RedisClusterConformanceTest.clusterUri(cluster));
            election = Baton.election(store).group(GROUP).config(FAST).node(NodeInfo.of(id, "it-" + id)).build();
            election.addListener(events::add);
        }

        long term() {
            return election.leadership().orElseThrow().term();
        }

        void close() {
            election.close();
            store.close();
        }
    }
}
