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
import dev.baton.testkit.RedisSentinelTopology;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis store behind Redis Sentinel, across a failover: every connection follows the primary the Sentinels name,
 * the election goes on there under a term above every term issued before — even when the promoted replica lagged and
 * its term counter is older (the clock floor of {@code acquire.lua}) — and a fenced write under a term from before the
 * failover is refused on the new primary once a new term was granted there. Each test on its own private topology;
 * Awaitility bounds are generous correctness bounds (a forced failover leaves the old primary serving until the
 * Sentinels next poll it), never performance claims.
 */
class RedisSentinelElectionTest {

    private static final String GROUP = "sentinel";
    private static final ElectionConfig FAST = ElectionConfig.fast();
    private static final Duration SETTLE = Duration.ofSeconds(30);
    /** The lease granted before replication is paused; it must expire by itself on the promoted replica. */
    private static final Duration BRIEF = Duration.ofSeconds(1);

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes() {
        nodes.forEach(Node::close);
    }

    @Test
    void anElectionGoesOnOnTheNewPrimaryAfterAFailoverUnderAHigherTermAndTheOldTermIsFenced() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start()) {
            node(redis, "a").start();
            node(redis, "b").start();
            Node first = awaitSingleLeader();
            long oldTerm = first.election.leadership().orElseThrow().term();
            assertThat(write(first.store, first.id, oldTerm)).isTrue();

            InetSocketAddress promoted = redis.failover();
            first.election.close();

            // The survivor leads under a term the NEW primary issued: it reached it through the Sentinels.
            Node next = nodes.stream().filter(n -> n != first).findFirst().orElseThrow();
            await().atMost(SETTLE).ignoreExceptions().until(() -> next.election.leadership()
                    .map(l -> Long.toString(l.term()).equals(redis.command(redis.primaryNode(), "GET", termKey())))
                    .orElse(false));
            assertThat(redis.primary()).isEqualTo(promoted);
            long newTerm = next.election.leadership().orElseThrow().term();
            assertThat(newTerm).isGreaterThan(oldTerm);
            List<Long> issued = nodes.stream().flatMap(n -> n.events.stream())
                    .filter(LeadershipAcquired.class::isInstance).map(e -> ((LeadershipAcquired) e).term()).toList();
            assertThat(issued).as("every term a node was granted").allMatch(term -> term <= newTerm).contains(newTerm);

            assertThat(write(next.store, first.id, oldTerm)).as("the deposed leader's term").isFalse();
            assertThat(write(next.store, next.id, newTerm)).isTrue();
            // The follower's lease notices come from the new primary: its pub/sub connection subscribed again there.
            await().atMost(SETTLE).until(() -> subscribers(redis, GroupKeys.of("", GROUP).noticesChannel()) >= 1);
        }
    }

    @Test
    void aPromotedReplicaThatLaggedStillIssuesATermAboveEveryEarlierOne() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start();
                RedisStore store = RedisStore.connect(redis.sentinelUri())) {
            long replicated = acquire(store, "n1", BRIEF);
            int primary = redis.primaryNode();
            List<Integer> replicas = List.of(0, 1, 2).stream().filter(i -> i != primary).toList();
            await().atMost(SETTLE).until(() -> replicas.stream().allMatch(i ->
                    Long.toString(replicated).equals(redis.command(i, "GET", termKey()))));
            // Both replicas fall behind, so whichever the Sentinels promote lags.
            replicas.forEach(redis::pauseReplication);

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

            InetSocketAddress previous = redis.primary();
            redis.killNode(primary);
            redis.awaitNewPrimary(previous);

            int promoted = redis.primaryNode();
            assertThat(redis.command(promoted, "GET", termKey())).as("the promoted replica's stale counter")
                    .isEqualTo(Long.toString(replicated));
            long next = await().atMost(SETTLE).ignoreExceptions().until(() -> acquire(store, "n5", BRIEF),
                    t -> t > 0);
            assertThat(next).isGreaterThan(lost);
            assertThat(redis.command(promoted, "GET", termKey())).isEqualTo(Long.toString(next));
            assertThat(write(store, "n4", lost)).as("a write under the term the failover lost").isFalse();
            assertThat(write(store, "n5", next)).isTrue();
        }
    }

    private Node node(RedisSentinelTopology redis, String id) {
        Node node = new Node(redis, id);
        nodes.add(node);
        return node;
    }

    private Node awaitSingleLeader() {
        await().atMost(FAST.leaseTtl().plusSeconds(5)).until(() ->
                nodes.stream().filter(n -> n.election.isLeader()).count() == 1);
        return nodes.stream().filter(n -> n.election.isLeader()).findFirst().orElseThrow();
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

    private static long subscribers(RedisSentinelTopology redis, String channel) {
        Object reply = redis.command(redis.primaryNode(), "PUBSUB", "NUMSUB", channel);
        return reply instanceof List<?> pair && pair.size() == 2 ? Long.parseLong(String.valueOf(pair.get(1))) : 0;
    }

    private static String termKey() {
        return GroupKeys.of("", GROUP).term();
    }

    /** One node: its own store through the Sentinels, its own election, the events it saw. */
    private static final class Node {
        final String id;
        final RedisStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

        Node(RedisSentinelTopology redis, String id) {
            this.id = id;
            store = RedisStore.connect(redis.sentinelUri());
            election = Baton.election(store).group(GROUP).config(FAST).node(NodeInfo.of(id, "it-" + id)).build();
            election.addListener(events::add);
        }

        Node start() {
            election.start();
            return this;
        }

        void close() {
            election.close();
            store.close();
        }
    }
}
