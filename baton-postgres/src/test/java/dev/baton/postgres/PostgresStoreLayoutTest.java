package dev.baton.postgres;

import static dev.baton.postgres.RawPostgres.count;
import static dev.baton.postgres.RawPostgres.execute;
import static dev.baton.postgres.RawPostgres.rows;
import static dev.baton.postgres.RawPostgres.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.EventLogStore;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** What the store leaves in PostgreSQL: seed 002's tables and columns, terms kept across releases, NOTIFY payloads. */
class PostgresStoreLayoutTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    private static PostgresServer postgres;

    private PostgresStore store;
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
    void open() {
        store = PostgresStore.connect(postgres.uri());
        group = "layout-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private long granted(String nodeId) {
        AcquireResult result = store.leases().acquire(group, NodeInfo.of(nodeId, nodeId), LONG).join();
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    @Test
    void theWarmUpOfEveryPooledConnectionLeavesNoRowBehind() throws SQLException {
        // Reads that wait behind a lock held elsewhere each keep a pooled connection busy, so the pool must open
        // more connections, each warmed up by a rolled-back acquire (and release) in the empty group before use.
        List<java.util.concurrent.CompletableFuture<?>> reads = new ArrayList<>();
        try (Connection locker = RawPostgres.connect(postgres)) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE baton.leader_lease IN ACCESS EXCLUSIVE MODE");
            }
            for (int i = 0; i < 4; i++) {
                reads.add(store.leases().read(group));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> RawPostgres.backends(postgres, "baton") > 1);
            locker.rollback();
        }
        reads.forEach(java.util.concurrent.CompletableFuture::join);
        assertThat(count(postgres, "SELECT count(*) FROM baton.leader_lease WHERE group_name = ''")).isZero();
        assertThat(granted("a")).isPositive();
    }

    @Test
    void aReleaseKeepsTheGroupsRowAndItsTermSoTheNextGrantIsAboveIt() {
        long first = granted("a");

        store.leases().release(group, "a", first).join();

        List<Object> row = rows(postgres, "SELECT leader_id, term, expires_at <= now() FROM baton.leader_lease "
                + "WHERE group_name = ?", group).get(0);
        assertThat(row).containsExactly(null, first, true);
        assertThat(granted("b")).isGreaterThan(first);
        assertThat(count(postgres, "SELECT count(*) FROM baton.leader_lease WHERE group_name = ?", group))
                .isEqualTo(1);
    }

    @Test
    void aTermAheadOfTheDatabaseClockGrowsByOneAndABehindOneJumpsToTheClock() {
        // 9e15 µs since the epoch is in the 23rd century: the stored term wins over the clock.
        long ahead = 9_000_000_000_000_000L;
        execute(postgres, "INSERT INTO baton.leader_lease (group_name, term) VALUES (?, ?)", group, ahead);
        assertThat(granted("a")).isEqualTo(ahead + 1);

        // A row restored from long ago: the clock wins over term + 1.
        execute(postgres, "UPDATE baton.leader_lease SET term = 7, leader_id = NULL WHERE group_name = ?", group);
        long clockBefore = ((Number) value(postgres,
                "SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 1000000) AS bigint)")).longValue();
        assertThat(granted("b")).isGreaterThanOrEqualTo(clockBefore);
    }

    @Test
    void theLeaseRowCarriesSeed002sColumnsAndTheLeadersProcessInfo() {
        NodeInfo candidate = NodeInfo.of("node-1", "orders-api").withApiAddress("http://10.0.0.5:8001")
                .withMetadata(Map.of("zone", "eu-1")).withCapabilities(new Capabilities(false, 7, 55));

        store.leases().acquire(group, candidate, LONG).join();

        List<Object> row = rows(postgres, "SELECT leader_id, hostname, api_url, leader_info->>'processId', "
                + "leader_info->>'role', leader_info->'metadata'->>'zone', "
                + "leader_info->'capabilities'->>'maxSubscriptions', acquired_at = renewed_at, "
                + "expires_at > now() + interval '50 seconds' FROM baton.leader_lease WHERE group_name = ?", group)
                .get(0);
        assertThat(row).containsExactly("node-1", "10.0.0.5", "http://10.0.0.5:8001", "node-1", "master", "eu-1",
                "7", true, true);
        NodeInfo leader = store.registry().leaderInfo(group).join().orElseThrow();
        assertThat(leader.id()).isEqualTo("node-1");
        assertThat(leader.identifier()).isEqualTo("orders-api");
        assertThat(leader.apiAddress()).isEqualTo("http://10.0.0.5:8001");
        assertThat(leader.metadata()).isEqualTo(Map.of("zone", "eu-1"));
        assertThat(leader.capabilities()).isEqualTo(new Capabilities(false, 7, 55));
        assertThat(leader.role()).isEqualTo(Role.LEADER);
        assertThat(leader.registeredAt()).isNotNull();
    }

    @Test
    void registryRowsCarrySeed002sColumnsWithCapabilitiesAndMetadataAsJson() {
        NodeInfo node = NodeInfo.of("worker-1", "detector").withApiAddress("https://w1.example")
                .withMetadata(Map.of("gpu", "yes", "rack", "r2")).withCapabilities(new Capabilities(true, 3, 40));

        store.registry().register(group, node, LONG).join();

        List<Object> row = rows(postgres, "SELECT identifier, hostname, port, api_url, state, is_healthy, "
                + "metadata->>'rack', capabilities->>'preferredWorkload', expires_at > last_heartbeat "
                + "FROM baton.cluster_nodes WHERE group_name = ? AND node_id = ?", group, "worker-1").get(0);
        assertThat(row).containsExactly("detector", "w1.example", 443, "https://w1.example", "follower", true, "r2",
                "40", true);
        NodeInfo read = store.registry().member(group, "worker-1").join().orElseThrow();
        assertThat(read.withTimes(null, null)).isEqualTo(node.withRole(Role.FOLLOWER));
    }

    @Test
    void metadataWrittenByOtherClientsReadsAsJsonbEachTextGivesIt() {
        Map<String, String> tricky = Map.of("quote\"d", "a\\b\n\t\u0001é\uD83D\uDE00", "empty", "", "comma,}", "{x}");
        store.registry().register(group, NodeInfo.of("worker-2", "detector").withMetadata(tricky), LONG).join();
        assertThat(store.registry().member(group, "worker-2").join().orElseThrow().metadata()).isEqualTo(tricky);

        // A row whose metadata another program wrote with values that are not strings.
        execute(postgres, "UPDATE baton.cluster_nodes SET metadata = CAST(? AS jsonb) WHERE group_name = ? "
                + "AND node_id = ?", "{\"n\": 1.50, \"b\": false, \"z\": null, \"o\": {\"k\": [1, \"v\"]}}", group,
                "worker-2");
        Map<String, String> expected = new java.util.HashMap<>();
        for (List<Object> pair : rows(postgres, "SELECT key, value FROM baton.cluster_nodes, jsonb_each_text(metadata) "
                + "WHERE group_name = ? AND node_id = ? AND value IS NOT NULL", group, "worker-2")) {
            expected.put((String) pair.get(0), (String) pair.get(1));
        }
        assertThat(expected).containsKeys("n", "b", "o");
        assertThat(store.registry().members(group).join().get(0).metadata()).isEqualTo(expected);
    }

    @Test
    void eventDataIsAJsonObjectAndTheTimestampIsTheDatabases() {
        store.events().appendEvent(group, "a", "leader_elected", Map.of("term", "7", "reason", "it's \"quoted\""))
                .join();

        List<Object> row = rows(postgres, "SELECT node_id, event_type, event_data->>'term', "
                + "event_data->>'reason', \"timestamp\" <= now() FROM baton.cluster_events WHERE group_name = ?",
                group).get(0);
        assertThat(row).containsExactly("a", "leader_elected", "7", "it's \"quoted\"", true);
    }

    @Test
    void theEventLogKeepsTheNewestEventRetentionRowsPerGroup() {
        int retention = EventLogStore.MIN_RETAINED;
        execute(postgres, "INSERT INTO baton.cluster_events (group_name, node_id, event_type) "
                + "SELECT ?, 'old', 'event_' || i FROM generate_series(1, 1500) AS i", group);
        execute(postgres, "INSERT INTO baton.cluster_events (group_name, node_id, event_type) "
                + "SELECT ?, 'old', 'event_' || i FROM generate_series(1, 10) AS i", group + "-other");

        try (PostgresStore pruning = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri())
                .eventRetention(retention).build())) {
            pruning.events().appendEvent(group, "new", "newest", Map.of()).join();
        }

        assertThat(count(postgres, "SELECT count(*) FROM baton.cluster_events WHERE group_name = ?", group))
                .isEqualTo(retention);
        assertThat(value(postgres, "SELECT event_type FROM baton.cluster_events WHERE group_name = ? "
                + "ORDER BY id LIMIT 1", group)).as("oldest kept").isEqualTo("event_" + (1500 - retention + 2));
        assertThat(count(postgres, "SELECT count(*) FROM baton.cluster_events WHERE group_name = ?",
                group + "-other")).isEqualTo(10);
        assertThat(store.events().recentEvents(group, 2).join()).extracting(e -> e.type()).containsExactly("newest",
                "event_1500");
    }

    @Test
    void aMessageTooLargeForNotifyFailsNamingTheLimitAndOneJustBelowArrivesWhole() {
        String channel = "big:" + UUID.randomUUID();
        List<byte[]> received = new CopyOnWriteArrayList<>();
        Subscription subscription = store.bus().subscribe(channel, received::add);
        subscription.ready().join();
        byte[] fits = new byte[5800];
        Arrays.fill(fits, (byte) 7);

        assertThat(store.bus().publish(channel, fits).join()).isEqualTo(-1L);
        assertThatThrownBy(() -> store.bus().publish(channel, new byte[6000]).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreException.class)
                .hasMessageContaining("a message of 6000 bytes")
                .hasMessageContaining("over PostgreSQL's limit of 7999 bytes");

        await().atMost(Duration.ofSeconds(5)).until(() -> received.size() == 1);
        assertThat(received.get(0)).isEqualTo(fits);
        subscription.close();
    }

    @Test
    void noticesAreNotifiesOnTheSchemasChannelThatAPlainListenCanRead() throws SQLException {
        try (Connection raw = RawPostgres.connect(postgres); Statement statement = raw.createStatement()) {
            statement.execute("LISTEN baton");
            PGConnection pg = raw.unwrap(PGConnection.class);

            long term = granted("node-a");
            store.registry().register(group, NodeInfo.of("node-b", "b"), LONG).join();
            store.leases().release(group, "node-a", term).join();

            List<String> payloads = new ArrayList<>();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                PGNotification[] notifications = pg.getNotifications(100);
                if (notifications != null) {
                    Arrays.stream(notifications).map(PGNotification::getParameter).forEach(payloads::add);
                }
                return payloads.size() >= 3;
            });
            String name = group.length() + ":" + group;
            assertThat(payloads).containsExactly("lease " + name + " acquired " + term + " node-a",
                    "member " + name + " registered node-b", "lease " + name + " released " + term + " node-a");
        }
    }
}
