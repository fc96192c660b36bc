package dev.baton.postgres.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent.MemberJoined;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.StaleTermException;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.postgres.PostgresStore;
import dev.baton.postgres.PostgresStoreOptions;
import dev.baton.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * Lease elections through {@code Baton.election(store)} on a real, private PostgreSQL: several nodes in one JVM, each
 * on its own store, as separate processes would be. Awaitility bounds are correctness bounds (within a lease TTL plus
 * slack), never performance claims.
 */
class PostgresElectionTest {

    private static final ElectionConfig FAST = ElectionConfig.fast();
    private static final Duration BOUND = FAST.leaseTtl().plusSeconds(2);

    /**
     * Followers that would not look again for 10 s on their own (lease TTL and check interval): a handover within a
     * few seconds can only come from the release notice.
     */
    private static final ElectionConfig PUSH_ONLY = FAST.toBuilder().leaseTtl(Duration.ofSeconds(10))
            .renewInterval(Duration.ofSeconds(3)).checkInterval(Duration.ofSeconds(10)).electionJitter(Duration.ZERO)
            .storeTimeout(Duration.ofSeconds(1)).processTtl(Duration.ofSeconds(20))
            .processHeartbeatInterval(Duration.ofSeconds(5)).build();
    private static final Duration PUSHED = Duration.ofSeconds(3);

    private static PostgresServer postgres;

    private final List<Node> nodes = new ArrayList<>();
    private String group;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @BeforeEach
    void freshGroup() {
        group = "it-" + System.nanoTime();
    }

    @AfterEach
    void closeNodes() {
        postgres.resume();
        nodes.forEach(Node::close);
        nodes.clear();
    }

    /** One node: its own store (application name {@code it-<id>}), its own election, the events it saw. */
    private final class Node {
        final String app;
        final PostgresStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

        Node(String id, ElectionConfig config, boolean sessions) {
            app = "it-" + id + "-" + group;
            store = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).applicationName(app)
                    .statementTimeout(Duration.ofSeconds(1)).connectTimeout(Duration.ofMillis(500))
                    .listenReconnectInterval(Duration.ofMillis(200)).build());
            election = Baton.election(store).group(group).config(config).node(NodeInfo.of(id, "it-" + id))
                    .sessions(sessions).build();
            election.addListener(events::add);
        }

        Node start() {
            election.start();
            return this;
        }

        long term() {
            return election.leadership().orElseThrow().term();
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
        return node(id, FAST);
    }

    private Node node(String id, ElectionConfig config) {
        return add(new Node(id, config, true));
    }

    /**
     * A node whose election keeps a lease with a TTL of its own and a registry entry, as before sessions: for the
     * tests written for those (store trouble reported per group, registry entries swept).
     */
    private Node ttlNode(String id, ElectionConfig config) {
        return add(new Node(id, config, false));
    }

    private Node add(Node node) {
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

    private static List<List<String>> events(String group) {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement("SELECT node_id, event_type, "
                     + "COALESCE(event_data->>'term', event_data->>'node_id', '') || "
                     + "COALESCE('/' || (event_data->>'reason'), '') FROM baton.cluster_events "
                     + "WHERE group_name = ? ORDER BY id")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(List.of(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    private static long storedTerm(String group) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement("SELECT term FROM baton.leader_lease WHERE group_name = ?")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void fiveContendingNodesElectExactlyOneLeaderAndAllKnowIt() {
        for (int i = 0; i < 5; i++) {
            node("n" + i);
        }
        nodes.forEach(Node::start);

        Node leader = awaitSingleLeader();
        long term = leader.term();

        await().atMost(BOUND).untilAsserted(() -> nodes.forEach(n ->
                assertThat(n.election.leader()).map(l -> l.nodeId()).contains(leader.election.nodeId())));
        assertThat(nodes.stream().mapToLong(n -> n.events(LeadershipAcquired.class).size()).sum()).isEqualTo(1);
        assertThat(leader.events(LeadershipAcquired.class).get(0).leadership().term()).isEqualTo(term);
        assertThat(storedTerm(group)).isEqualTo(term);
    }

    @Test
    void closingTheLeaderHandsOverThroughNotifyUnderAHigherTerm() {
        Node first = node("a", PUSH_ONLY).start();
        await().atMost(BOUND).until(first.election::isLeader);
        Node second = node("b", PUSH_ONLY).start();
        await().atMost(BOUND).until(() -> second.election.leader().isPresent());
        awaitListening(second);
        long oldTerm = first.term();

        first.election.close();

        await().atMost(PUSHED).until(second.election::isLeader);
        assertThat(second.term()).isGreaterThan(oldTerm);
        assertThat(first.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.RELEASED));
    }

    @Test
    void termsStrictlyIncreaseOverRepeatedHandovers() {
        node("a").start();
        node("b").start();
        node("c").start();
        List<Long> terms = new ArrayList<>();
        Node leader = awaitSingleLeader();
        terms.add(leader.term());

        for (int round = 0; round < 4; round++) {
            Node previous = leader;
            previous.election.stepDown().join();
            await().atMost(BOUND).until(() -> leaders().size() == 1 && leaders().get(0).term() > terms.get(
                    terms.size() - 1));
            leader = leaders().get(0);
            terms.add(leader.term());
        }

        assertThat(terms).isSorted().doesNotHaveDuplicates();
        assertThat(storedTerm(group)).isEqualTo(terms.get(terms.size() - 1));
    }

    @Test
    void aRegisteredNodeThatStopsHeartbeatingIsSweptAndTheLeaderToldMemberRemoved() {
        ElectionConfig shortTtl = FAST.toBuilder().processTtl(Duration.ofSeconds(1))
                .processHeartbeatInterval(Duration.ofMillis(300)).checkInterval(Duration.ofMillis(200)).build();
        Node leader = ttlNode("a", shortTtl).start();
        awaitSingleLeader();

        leader.election.membership().register(NodeInfo.of("silent", "worker")).join();

        await().atMost(BOUND).until(() -> leader.events(MemberJoined.class).stream()
                .anyMatch(j -> j.member().id().equals("silent")));
        await().atMost(BOUND).until(() -> leader.events(MemberRemoved.class).stream()
                .anyMatch(r -> r.nodeId().equals("silent")));
        assertThat(leader.election.membership().member("silent").join()).isEqualTo(Optional.empty());
        assertThat(leader.store.registry().members(group).join()).extracting(NodeInfo::id).containsExactly("a");
    }

    @Test
    void theClusterEventRecorderWritesTheSeedsEventsToClusterEvents() {
        Node a = node("a").start();
        awaitSingleLeader();
        long first = a.term();
        Node b = node("b").start();
        await().atMost(BOUND).until(() -> !a.events(MemberJoined.class).isEmpty());

        a.election.close();
        await().atMost(BOUND).until(b.election::isLeader);
        long second = b.term();

        await().atMost(BOUND).untilAsserted(() -> assertThat(events(group)).contains(
                List.of("a", "election_started", ""),
                List.of("a", "leader_elected", Long.toString(first)),
                List.of("a", "node_joined", "b"),
                List.of("a", "leader_lost", first + "/RELEASED"),
                List.of("b", "leader_elected", Long.toString(second))));
        // Newest first; the old leader's last writes (it leaves the registry as it closes) may land after the new
        // leader's election, so the order is checked rather than which node wrote last.
        List<ClusterEvent> recent = b.store.events().recentEvents(group, 50).join();
        assertThat(recent).extracting(ClusterEvent::id).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(b.store.events().recentEvents(group, 1).join()).singleElement()
                .satisfies(e -> assertThat(e.id()).isEqualTo(recent.get(0).id()));
    }

    @Test
    void aDatabaseRestartMidLeaseEndsInANewHigherTermAndTheProblemClears() {
        Node a = ttlNode("a", FAST).start();
        Node b = ttlNode("b", FAST).start();
        Node leader = awaitSingleLeader();
        long before = leader.term();

        postgres.stop();
        await().atMost(BOUND).until(() -> leaders().isEmpty());
        await().atMost(BOUND).until(() -> a.election.problem().isPresent() && b.election.problem().isPresent());
        assertThat(leader.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
        postgres.restart();

        Node next = awaitSingleLeader();
        assertThat(next.term()).isGreaterThan(before);
        await().atMost(BOUND).until(() -> a.election.problem().isEmpty() && b.election.problem().isEmpty());
    }

    @Test
    void aLeaderWhoseDatabaseHangsDemotesByItsDeadlineAndRecoversAfter() {
        Node a = ttlNode("a", FAST).start();
        awaitSingleLeader();
        long term = a.term();

        postgres.pause();
        try {
            await().atMost(BOUND).until(() -> !a.election.isLeader());
            // isLeader() turns false before listeners are told (stop acting first); the event follows.
            await().atMost(BOUND).until(() -> !a.events(LeadershipLost.class).isEmpty());
            assertThat(a.events(LeadershipLost.class)).singleElement()
                    .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
            assertThat(a.election.problem()).isPresent();
        } finally {
            postgres.resume();
        }

        await().atMost(BOUND.multipliedBy(2)).until(() -> a.election.isLeader());
        assertThat(a.term()).isGreaterThan(term);
        await().atMost(BOUND).until(() -> a.election.problem().isEmpty());
    }

    @Test
    void aTerminatedListenConnectionIsReestablishedAndALaterReleaseIsStillPushed() {
        Node a = node("a", PUSH_ONLY).start();
        await().atMost(BOUND).until(a.election::isLeader);
        Node b = node("b", PUSH_ONLY).start();
        await().atMost(BOUND).until(() -> b.election.leader().isPresent());
        String listenApp = b.app + ":listen";
        Object before = pid(listenApp);

        terminate(before);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Object now = pid(listenApp);
            return now != null && !now.equals(before);
        });
        awaitListening(b);
        a.election.close();

        await().atMost(PUSHED).until(b.election::isLeader);
    }

    @Test
    void aDeposedLeadersFencedWritesAreRefused() throws SQLException {
        Node a = node("a").start();
        awaitSingleLeader();
        Leadership old = a.election.leadership().orElseThrow();
        assertThat(a.election.fencedRegister("config").write(old, bytes("v1")).join().accepted()).isTrue();
        Node b = node("b").start();
        await().atMost(BOUND).until(() -> b.election.leader().isPresent());
        // The handover comes from the release notice: b must be listening by then. A session-bound follower knows the
        // leader within a few ms of starting, before its LISTEN connection may be up.
        awaitListening(b);

        a.election.stepDown().join();
        await().atMost(BOUND).until(b.election::isLeader);
        long current = b.term();

        FencedWriteResult stale = a.store.registers().fencedWrite(group, "config", "a", old.term(), bytes("stale"))
                .join();
        assertThat(stale).isEqualTo(new FencedWriteResult(false, current));
        assertThat(a.store.maps().fencedPut(group, "items", "k", "a", old.term(), bytes("stale")).join().accepted())
                .isFalse();
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password())) {
            assertThatThrownBy(() -> a.store.fencing(group).execute(c, old.term(), conn -> 1))
                    .isInstanceOf(StaleTermException.class);
            String written = b.store.fencing(group).execute(c, current, conn -> "written");
            assertThat(written).isEqualTo("written");
        }
        assertThat(new String(b.store.registers().fencedRead(group, "config").join().orElseThrow().value(),
                StandardCharsets.UTF_8)).isEqualTo("v1");
    }

    /**
     * Waits until the node's store has LISTEN in effect: a new subscription is ready at once only then. (Right after
     * a connection dropped and before it is noticed, that could still be the old connection; callers that killed it
     * first wait for the new one to appear.)
     */
    private static void awaitListening(Node node) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            var probe = node.store.bus().subscribe("probe", message -> { });
            try {
                return probe.ready().handle((ok, error) -> error == null).get(5, java.util.concurrent.TimeUnit.SECONDS);
            } finally {
                probe.close();
            }
        });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Object pid(String applicationName) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement(
                     "SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            ps.setString(1, applicationName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void terminate(Object pid) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setObject(1, pid);
            ps.executeQuery().close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
