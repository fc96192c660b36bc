package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Subscription;
import dev.baton.testkit.PostgresStandbyTopology;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store on a primary with a streaming standby, through one multi-host URI
 * ({@code postgresql://…@primary,standby/baton}, which defaults to {@code targetServerType=primary}): the primary is
 * killed, the standby promoted, and the store carries on there with terms above every term issued before, even when
 * the standby had not received the last grants. Skipped, with the reason, where no {@code pg_basebackup} is
 * installed. Awaitility bounds are correctness bounds, never performance claims.
 */
class PostgresFailoverToStandbyTest {

    private static final ElectionConfig FAST = ElectionConfig.fast();
    /** Killing the primary, waiting out a lease, promoting: generous, the machine is shared. */
    private static final Duration FAILOVER = Duration.ofSeconds(30);

    /**
     * Followers that would not poll for 30 s: a handover within a few seconds comes from the release notice (or, by
     * chance, from the lease expiry a follower read before; the test also checks the notice arrived).
     */
    private static final ElectionConfig PUSH_ONLY = FAST.toBuilder().leaseTtl(Duration.ofSeconds(10))
            .renewInterval(Duration.ofSeconds(3)).checkInterval(Duration.ofSeconds(30)).electionJitter(Duration.ZERO)
            .storeTimeout(Duration.ofSeconds(1)).processTtl(Duration.ofSeconds(20))
            .processHeartbeatInterval(Duration.ofSeconds(5)).build();
    private static final Duration PUSHED = Duration.ofSeconds(5);

    private PostgresStandbyTopology pg;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final String group = "failover";

    @BeforeAll
    static void needsPgBasebackup() {
        Optional<String> why = PostgresStandbyTopology.whyUnavailable();
        Assumptions.assumeTrue(why.isEmpty(), () -> why.orElse(""));
    }

    @BeforeEach
    void startTopology() {
        pg = PostgresStandbyTopology.start();
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        pg.close();
    }

    @Test
    void anElectionContinuesOnThePromotedStandbyAboveEveryEarlierTerm() {
        Node a = node("a", FAST).start();
        Node b = node("b", FAST).start();
        await().atMost(FAILOVER).until(() -> leaders(a, b).size() == 1);
        long before = maxAcquired(a, b);
        pg.awaitStandbyCaughtUp();

        pg.killPrimary();
        // Renewals now fail: the leader gives up at its local deadline, whatever the database does next.
        await().atMost(FAILOVER).until(() -> leaders(a, b).isEmpty());
        pg.promoteStandby();

        await().atMost(FAILOVER).until(() -> leaders(a, b).size() == 1);
        Node leader = leaders(a, b).get(0);
        assertThat(leader.election.leadership().orElseThrow().term()).isGreaterThan(before);
        assertThat(allAcquired(a, b)).doesNotHaveDuplicates();
    }

    @Test
    void aStandbyThatMissedTheLastGrantsStillIssuesAHigherTermAndRefusesTheOldOnes() throws Exception {
        PostgresStore store = store("s");
        long replicated = granted(store.leases().acquire(group, NodeInfo.of("a", "a"), Duration.ofSeconds(30)));
        assertThat(store.leases().release(group, "a", replicated).get(5, TimeUnit.SECONDS)).isTrue();
        pg.awaitStandbyCaughtUp();

        // The standby stops receiving WAL: what follows is lost to it, like the tail of an asynchronous standby.
        pg.stopStandby();
        long lastOnPrimary = replicated;
        for (int i = 0; i < 3; i++) {
            lastOnPrimary = granted(store.leases().acquire(group, NodeInfo.of("a", "a"), Duration.ofSeconds(30)));
            if (i < 2) {
                assertThat(store.leases().release(group, "a", lastOnPrimary).get(5, TimeUnit.SECONDS)).isTrue();
            }
        }
        assertThat(store.registers().fencedWrite(group, "config", "a", lastOnPrimary, bytes("old")).get(5,
                TimeUnit.SECONDS).accepted()).isTrue();
        pg.killPrimary();
        pg.restartStandby();
        pg.promoteStandby();

        assertThat(storedTermOnStandby()).as("the promoted standby lost the last grants").isEqualTo(replicated);
        long next = retry(() -> store.leases().acquire(group, NodeInfo.of("b", "b"), Duration.ofSeconds(30))
                .thenApply(PostgresFailoverToStandbyTest::grantedTerm));
        assertThat(next).as("the database clock floor").isGreaterThan(lastOnPrimary);

        FencedWriteResult stale = store.registers().fencedWrite(group, "config", "a", lastOnPrimary, bytes("stale"))
                .get(5, TimeUnit.SECONDS);
        assertThat(stale).isEqualTo(new FencedWriteResult(false, next));
        assertThat(store.registers().fencedWrite(group, "config", "b", next, bytes("new")).get(5, TimeUnit.SECONDS)
                .accepted()).isTrue();
    }

    @Test
    void aReleaseOnThePromotedStandbyIsPushedToTheOtherNodes() {
        Node a = node("a", PUSH_ONLY).start();
        await().atMost(FAILOVER).until(a.election::isLeader);
        Node b = node("b", PUSH_ONLY).start();
        await().atMost(FAILOVER).until(() -> b.election.leader().isPresent());
        pg.awaitStandbyCaughtUp();

        pg.killPrimary();
        pg.promoteStandby();
        // Whoever leads once the new primary answers; its lease was replicated, so it may be the same node.
        await().atMost(FAILOVER).until(() -> leaders(a, b).size() == 1);
        Node leader = leaders(a, b).get(0);
        Node follower = leader == a ? b : a;
        List<LeaseNotice> notices = new CopyOnWriteArrayList<>();
        // A watch made while the follower's LISTEN connection is still moving to the new primary says so in its
        // ready() for good (it keeps retrying underneath): watch again until one is ready from the start.
        AtomicReference<Subscription> listening = new AtomicReference<>();
        await().atMost(FAILOVER).until(() -> {
            Subscription watch = follower.store.leases().watch(group, notices::add);
            if (watch.ready().handle((ok, error) -> error == null).join()) {
                listening.set(watch);
                return true;
            }
            watch.close();
            return false;
        });
        open.add(listening.get()::close);
        long oldTerm = leader.election.leadership().orElseThrow().term();

        leader.election.stepDown().join();

        await().atMost(PUSHED).until(follower.election::isLeader);
        assertThat(follower.election.leadership().orElseThrow().term()).isGreaterThan(oldTerm);
        assertThat(notices).contains(new LeaseNotice(LeaseNotice.Kind.RELEASED, leader.id, oldTerm));
    }

    /** One node: its own store on the multi-host URI, its own election, the events it saw. */
    private final class Node {
        final String id;
        final PostgresStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

        Node(String id, ElectionConfig config) {
            this.id = id;
            store = store(id);
            election = Baton.election(store).group(group).config(config).node(NodeInfo.of(id, "it-" + id)).build();
            election.addListener(events::add);
            open.add(election);
        }

        Node start() {
            election.start();
            return this;
        }
    }

    private Node node(String id, ElectionConfig config) {
        return new Node(id, config);
    }

    /** A store on {@code postgresql://baton:…@primary,standby/baton}: no targetServerType, the default applies. */
    private PostgresStore store(String id) {
        String uri = "postgresql://" + pg.user() + ":" + pg.password() + "@127.0.0.1:" + pg.primary().port()
                + ",127.0.0.1:" + pg.standbyPort() + "/" + pg.database();
        PostgresStore store = PostgresStore.connect(PostgresStoreOptions.builder().uri(uri)
                .applicationName("failover-" + id).statementTimeout(Duration.ofSeconds(1))
                .connectTimeout(Duration.ofMillis(500)).listenReconnectInterval(Duration.ofMillis(200)).build());
        open.add(store);
        assertThat(store.describe()).doesNotContain(pg.password());
        return store;
    }

    private static List<Node> leaders(Node... nodes) {
        return List.of(nodes).stream().filter(n -> n.election.isLeader()).toList();
    }

    private static List<Long> allAcquired(Node... nodes) {
        return List.of(nodes).stream().flatMap(n -> n.events.stream()).filter(LeadershipAcquired.class::isInstance)
                .map(e -> ((LeadershipAcquired) e).leadership().term()).toList();
    }

    private static long maxAcquired(Node... nodes) {
        Collection<Long> terms = allAcquired(nodes);
        return terms.stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    private static long granted(CompletableFuture<AcquireResult> acquire) throws Exception {
        return grantedTerm(acquire.get(5, TimeUnit.SECONDS));
    }

    private static long grantedTerm(AcquireResult result) {
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    /** A store call retried until it succeeds: the first ones after a failover may meet connections that broke. */
    private static <T> T retry(Supplier<CompletableFuture<T>> call) {
        AtomicReference<T> result = new AtomicReference<>();
        await().atMost(FAILOVER).ignoreExceptions().until(() -> {
            result.set(call.get().get(5, TimeUnit.SECONDS));
            return true;
        });
        return result.get();
    }

    /** {@code leader_lease.term} of the group, read with plain JDBC on the (promoted) standby. */
    private long storedTermOnStandby() throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.standbyJdbcUrl(), pg.user(), pg.password());
                PreparedStatement ps = c.prepareStatement("SELECT term FROM baton.leader_lease WHERE group_name = ?")) {
            ps.setString(1, group);
            try (ResultSet rows = ps.executeQuery()) {
                assertThat(rows.next()).as("the group's lease row was replicated").isTrue();
                return rows.getLong(1);
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
