package dev.baton.redis.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent.MemberJoined;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lease elections on a real, private Redis: several nodes in one JVM, each on its own client, as separate processes
 * would be. Awaitility bounds are correctness bounds (within a lease TTL plus slack), never performance claims.
 */
class RedisElectionTest {

    private static final ElectionConfig FAST = ElectionConfig.fast();
    private static final Duration BOUND = FAST.leaseTtl().plusSeconds(2);

    private static RedisServer redis;

    private final List<Node> nodes = new ArrayList<>();
    private String group;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void freshGroup() {
        group = "it-" + System.nanoTime();
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(Node::close);
        nodes.clear();
    }

    /** One node: its own store client, its own election, the events it saw. */
    private final class Node {
        final RedisStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

        Node(String id, ElectionConfig config, boolean sessions) {
            store = RedisStore.connect(redis.uri());
            election = Baton.election(store).group(group).config(config).node(NodeInfo.of(id, "it-" + id))
                    .sessions(sessions).build();
            election.addListener(events::add);
        }

        Node start() {
            election.start();
            return this;
        }

        <T extends ElectionEvent> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        void close() {
            election.close();
            store.close();
        }
    }

    private Node node(String id) {
        return node(id, FAST, true);
    }

    /** A node whose election keeps its lease on the store's session ({@code sessions}) or a TTL of its own. */
    private Node node(String id, ElectionConfig config, boolean sessions) {
        Node node = new Node(id, config, sessions);
        nodes.add(node);
        return node;
    }

    private List<Node> leaders() {
        return nodes.stream().filter(n -> n.election.isLeader()).toList();
    }

    private Node awaitSingleLeader() {
        await().atMost(BOUND).until(() -> leaders().size() == 1);
        return leaders().get(0);
    }

    @Test
    void fiveContendingNodesElectExactlyOneLeaderAndAllKnowIt() {
        for (int i = 0; i < 5; i++) {
            node("n" + i);
        }
        nodes.forEach(Node::start);

        Node leader = awaitSingleLeader();
        long term = leader.election.leadership().orElseThrow().term();

        await().atMost(BOUND).untilAsserted(() -> nodes.forEach(n ->
                assertThat(n.election.leader()).map(l -> l.nodeId()).contains(leader.election.nodeId())));
        // isLeader() turns true as the machine decides; listeners hear of it just after.
        await().atMost(BOUND).until(() -> !leader.events(LeadershipAcquired.class).isEmpty());
        assertThat(nodes.stream().mapToLong(n -> n.events(LeadershipAcquired.class).size()).sum()).isEqualTo(1);
        assertThat(leader.events(LeadershipAcquired.class).get(0).term()).isEqualTo(term);
    }

    @Test
    void closingTheLeaderHandsOverToAnotherNodeUnderAHigherTerm() {
        node("a").start();
        Node first = awaitSingleLeader();
        node("b").start();
        node("c").start();
        long oldTerm = first.election.leadership().orElseThrow().term();

        first.election.close();

        await().atMost(BOUND).until(() -> leaders().size() == 1 && leaders().get(0) != first);
        Node next = leaders().get(0);
        assertThat(next.election.leadership().orElseThrow().term()).isGreaterThan(oldTerm);
        assertThat(first.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.RELEASED));
    }

    @Test
    void termsKeepIncreasingAcrossARedisRestartThatLostAllData() {
        Node a = node("a").start();
        awaitSingleLeader();
        long before = a.election.leadership().orElseThrow().term();

        redis.stop();
        await().atMost(BOUND).until(() -> !a.election.isLeader());
        redis.restart();

        Node leader = awaitSingleLeader();
        assertThat(leader.election.leadership().orElseThrow().term()).isGreaterThan(before);
    }

    @Test
    void aLeaderWhoseRedisHangsDemotesByItsDeadlineAndRecoversAfter() {
        Node a = node("a").start();
        awaitSingleLeader();
        long term = a.election.leadership().orElseThrow().term();

        redis.pause();
        try {
            await().atMost(BOUND).until(() -> !a.election.isLeader());
            // isLeader() turns false before listeners are told (DESIGN: stop acting first); the event follows.
            await().atMost(BOUND).until(() -> !a.events(LeadershipLost.class).isEmpty());
            assertThat(a.events(LeadershipLost.class)).singleElement()
                    .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
            assertThat(a.events(ElectionEvent.ElectionError.class)).isNotEmpty();
        } finally {
            redis.resume();
        }

        await().atMost(BOUND.multipliedBy(2)).until(() -> a.election.isLeader());
        assertThat(a.election.leadership().orElseThrow().term()).isGreaterThan(term);
    }

    @Test
    void memberEventsReachTheLeaderOnly() {
        Node leader = node("a").start();
        awaitSingleLeader();
        Node follower = node("b").start();

        await().atMost(BOUND).until(() -> !leader.events(MemberJoined.class).isEmpty());
        assertThat(leader.events(MemberJoined.class)).extracting(j -> j.member().id()).containsExactly("b");

        Node late = node("c").start();
        await().atMost(BOUND).until(() -> leader.events(MemberJoined.class).size() == 2);
        late.close();
        nodes.remove(late);

        await().atMost(BOUND).until(() -> !leader.events(MemberRemoved.class).isEmpty());
        assertThat(leader.events(MemberRemoved.class)).extracting(MemberRemoved::nodeId).containsExactly("c");
        assertThat(follower.events(MemberJoined.class)).isEmpty();
        assertThat(follower.events(MemberRemoved.class)).isEmpty();
    }

    /**
     * Bound to sessions: a member whose process vanished (its store client gone, no release and no leave) is removed
     * once its session expires, found by the leader's one {@code remaining()} call for its members' sessions.
     */
    @Test
    void aMemberWhoseSessionExpiresIsRemoved() {
        Node leader = node("a").start();
        awaitSingleLeader();
        Node vanished = node("b").start();
        await().atMost(BOUND).until(() -> leader.events(MemberJoined.class).stream()
                .anyMatch(j -> j.member().id().equals("b")));

        vanished.store.close();

        await().atMost(BOUND).until(() -> leader.events(MemberRemoved.class).stream()
                .anyMatch(r -> r.nodeId().equals("b")));
    }

    /**
     * Registry entries with TTLs of their own: an election bound to a session tracks the sessions that joined
     * instead, so this one keeps per-group leases and entries.
     */
    @Test
    void aProcessThatStopsHeartbeatingIsRemovedAfterItsTtl() {
        ElectionConfig shortTtl = FAST.toBuilder().processTtl(Duration.ofSeconds(1))
                .processHeartbeatInterval(Duration.ofMillis(300)).checkInterval(Duration.ofMillis(200)).build();
        Node leader = node("a", shortTtl, false).start();
        awaitSingleLeader();

        leader.election.membership().register(NodeInfo.of("silent", "worker")).join();

        await().atMost(BOUND).until(() -> leader.events(MemberJoined.class).stream()
                .anyMatch(j -> j.member().id().equals("silent")));
        await().atMost(BOUND).until(() -> leader.events(MemberRemoved.class).stream()
                .anyMatch(r -> r.nodeId().equals("silent")));
        assertThat(leader.election.membership().member("silent").join()).isEqualTo(Optional.empty());
    }
}
