package dev.baton.postgres;

import static dev.baton.postgres.RawPostgres.count;
import static dev.baton.postgres.RawPostgres.execute;
import static dev.baton.postgres.RawPostgres.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.StoreException;
import dev.baton.postgres.internal.SchemaSetup;
import dev.baton.testkit.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The schema is created idempotently, safely under concurrent first starts, in any schema, and versioned. */
class PostgresSchemaTest {

    private static PostgresServer postgres;
    private static int schemas;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    private static String freshSchema() {
        return "schema_test_" + ++schemas;
    }

    private static PostgresStoreOptions.Builder options(String schema) {
        return PostgresStoreOptions.builder().uri(postgres.uri()).schema(schema).poolSize(1);
    }

    private static List<Integer> versions(String schema) {
        return rows(postgres, "SELECT version FROM " + schema + ".schema_version ORDER BY version").stream()
                .map(row -> ((Number) row.get(0)).intValue()).toList();
    }

    private static void applyByHand(String schema, int version) {
        execute(postgres, "BEGIN; " + SchemaSetup.script(schema, version) + " COMMIT;");
    }

    private static List<String> tables(String schema) {
        return rows(postgres, "SELECT table_name FROM information_schema.tables WHERE table_schema = ? "
                + "ORDER BY table_name", schema).stream().map(row -> (String) row.get(0)).toList();
    }

    @Test
    void theFirstStartCreatesEveryTableAndStampsEveryVersion() {
        String schema = freshSchema();

        PostgresStore.connect(options(schema).build()).close();

        assertThat(tables(schema)).containsExactly("cluster_events", "cluster_nodes", "fenced_maps",
                "fenced_registers", "leader_lease", "leader_records", "schema_version", "session_members",
                "sessions");
        assertThat(PostgresStore.SCHEMA_VERSION).isEqualTo(3);
        assertThat(versions(schema)).containsExactly(1, 2, 3);
        assertThat(rows(postgres, "SELECT column_name FROM information_schema.columns WHERE table_schema = ? "
                + "AND table_name = 'leader_records' ORDER BY ordinal_position", schema))
                .extracting(row -> row.get(0)).containsExactly("group_name", "term", "leader_id", "process_id",
                        "address", "updated_at");
        assertThat(rows(postgres, "SELECT column_name FROM information_schema.columns WHERE table_schema = ? "
                + "AND table_name = 'leader_lease' ORDER BY ordinal_position", schema))
                .extracting(row -> row.get(0)).containsExactly("group_name", "leader_id", "term", "acquired_at",
                        "expires_at", "renewed_at", "hostname", "api_url", "leader_info", "holder_session");
        assertThat(rows(postgres, "SELECT column_name FROM information_schema.columns WHERE table_schema = ? "
                + "AND table_name = 'sessions' ORDER BY ordinal_position", schema))
                .extracting(row -> row.get(0)).containsExactly("id", "node_id", "node_info", "opened_at",
                        "expires_at", "last_seen");
        assertThat(count(postgres, "SELECT count(*) FROM pg_indexes WHERE schemaname = ? "
                + "AND indexname = 'cluster_events_group_id_idx'", schema)).isEqualTo(1);
    }

    @Test
    void startingTwiceChangesNothingAndKeepsTheData() {
        String schema = freshSchema();
        AcquireResult granted;
        try (PostgresStore first = PostgresStore.connect(options(schema).build())) {
            granted = first.leases().acquire("g", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();
            assertThat(granted).isInstanceOf(AcquireResult.Granted.class);
        }

        long term = ((AcquireResult.Granted) granted).term();
        try (PostgresStore second = PostgresStore.connect(options(schema).build())) {
            assertThat(second.leases().read("g").join()).hasValueSatisfying(lease -> assertThat(lease.term())
                    .isEqualTo(term));
        }
        assertThat(versions(schema)).containsExactly(1, 2, 3);
    }

    @Test
    void fiveStoresStartingTogetherOnAnEmptyDatabaseAllSucceed() throws Exception {
        String schema = freshSchema();
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<PostgresStore>> starts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            starts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return PostgresStore.connect(options(schema).build());
            }));
        }
        go.countDown();

        List<PostgresStore> stores = new ArrayList<>();
        try {
            for (CompletableFuture<PostgresStore> start : starts) {
                stores.add(start.get(30, TimeUnit.SECONDS));
            }
            assertThat(tables(schema)).hasSize(9);
            assertThat(versions(schema)).containsExactly(1, 2, 3);
        } finally {
            stores.forEach(PostgresStore::close);
        }
    }

    @Test
    void withoutCreateSchemaAnEmptyDatabaseIsRefusedNamingWhatIsMissing() {
        String schema = freshSchema();

        assertThatThrownBy(() -> PostgresStore.connect(options(schema).createSchema(false).build()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("schema " + schema + " is not set up and createSchema is false")
                .hasMessageContaining(schema + ".leader_lease")
                .hasMessageContaining("dev/baton/postgres/schema-v1.sql")
                .hasMessageContaining("psql -v schema=" + schema
                        + " -1 -f schema-v1.sql -f schema-v2.sql -f schema-v3.sql");
        assertThat(tables(schema)).isEmpty();
    }

    @Test
    void withoutCreateSchemaAMissingTableIsNamed() {
        String schema = freshSchema();
        PostgresStore.connect(options(schema).build()).close();
        execute(postgres, "DROP TABLE " + schema + ".fenced_maps");

        assertThatThrownBy(() -> PostgresStore.connect(options(schema).createSchema(false).build()))
                .hasMessageContaining("table " + schema + ".fenced_maps is missing");
    }

    @Test
    void theShippedScriptsAppliedByHandAreAcceptedWithoutCreateSchema() {
        String schema = freshSchema();
        applyByHand(schema, 1);
        applyByHand(schema, 2);
        applyByHand(schema, 3);

        try (PostgresStore store = PostgresStore.connect(options(schema).createSchema(false).build())) {
            assertThat(store.leases().acquire("g", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join())
                    .isInstanceOf(AcquireResult.Granted.class);
            assertThat(store.leaderRecords().writeLeader(new LeaderRecord("g", 1, "a", 1, "127.0.0.1:7001")).join()
                    .accepted())
                    .isTrue();
        }
    }

    @Test
    void aVersionOneSchemaIsRefusedWithoutCreateSchemaNamingTheUpgradeScript() {
        String schema = freshSchema();
        applyByHand(schema, 1);

        assertThatThrownBy(() -> PostgresStore.connect(options(schema).createSchema(false).build()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("schema " + schema + " is at version 1, older than version 3")
                .hasMessageContaining("apply dev/baton/postgres/schema-v2.sql then dev/baton/postgres/schema-v3.sql "
                        + "(psql -v schema=" + schema + " -1 -f schema-v2.sql -f schema-v3.sql)");
        assertThat(tables(schema)).doesNotContain("leader_records");
    }

    @Test
    void aStoreUpgradesAVersionOneSchemaInPlaceKeepingItsData() {
        String schema = freshSchema();
        applyByHand(schema, 1);
        // A term ahead of the database clock (µs since the epoch), so the next grant is exactly the kept term + 1.
        long kept = 9_000_000_000_000_000L;
        execute(postgres, "INSERT INTO " + schema + ".leader_lease (group_name, term) VALUES ('g', " + kept + ")");

        try (PostgresStore store = PostgresStore.connect(options(schema).build())) {
            assertThat(store.leases().acquire("g", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join())
                    .isEqualTo(new AcquireResult.Granted(kept + 1));
            assertThat(store.leaderRecords().writeLeader(new LeaderRecord("g", kept + 1, "a", 1, "127.0.0.1:7001"))
                    .join()
                    .accepted()).isTrue();
        }
        assertThat(versions(schema)).containsExactly(1, 2, 3);
        assertThat(tables(schema)).contains("leader_records");
    }

    @Test
    void anAdministratorUpgradesByHandAndGrantsTheNewTableToTheLeastPrivilegedUser() {
        String schema = freshSchema();
        String user = schema + "_app";
        applyByHand(schema, 1);
        execute(postgres, "CREATE ROLE " + user + " LOGIN PASSWORD 'app-pw'");
        execute(postgres, "GRANT USAGE ON SCHEMA " + schema + " TO " + user);
        execute(postgres, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO " + user);
        execute(postgres, "GRANT USAGE ON SEQUENCE " + schema + ".cluster_events_id_seq TO " + user);

        applyByHand(schema, 2);
        execute(postgres, "GRANT SELECT, INSERT, UPDATE, DELETE ON " + schema + ".leader_records TO " + user);
        applyByHand(schema, 3);
        execute(postgres, "GRANT SELECT, INSERT, UPDATE, DELETE ON " + schema + ".sessions, " + schema
                + ".session_members TO " + user);

        try (PostgresStore store = PostgresStore.connect(PostgresStoreOptions.builder().jdbcUrl(postgres.jdbcUrl())
                .user(user).password("app-pw").schema(schema).createSchema(false).build())) {
            LeaderRecord record = new LeaderRecord("g", 3, "a", 1, "127.0.0.1:7001");
            assertThat(store.leaderRecords().writeLeader(record).join().accepted()).isTrue();
            assertThat(store.leaderRecords().writeLeader(new LeaderRecord("g", 2, "b", 2, "127.0.0.1:7002")).join()
                    .accepted())
                    .isFalse();
            assertThat(store.leaderRecords().readLeader("g").join()).contains(record);
        }
    }

    @Test
    void aSchemaThatLostItsVersionRowsIsCompletedByAStoreThatMayCreate() {
        String schema = freshSchema();
        PostgresStore.connect(options(schema).build()).close();
        execute(postgres, "DELETE FROM " + schema + ".schema_version");

        PostgresStore.connect(options(schema).build()).close();

        assertThat(versions(schema)).containsExactly(1, 2, 3);
    }

    @Test
    void withoutCreateSchemaAUserWithOnlyTheDocumentedPrivilegesCanDoEverything() {
        String schema = freshSchema();
        String user = schema + "_app";
        PostgresStore.connect(options(schema).build()).close();
        execute(postgres, "CREATE ROLE " + user + " LOGIN PASSWORD 'app-pw'");
        execute(postgres, "GRANT USAGE ON SCHEMA " + schema + " TO " + user);
        execute(postgres, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO " + user);
        execute(postgres, "GRANT USAGE ON SEQUENCE " + schema + ".cluster_events_id_seq TO " + user);

        try (PostgresStore store = PostgresStore.connect(PostgresStoreOptions.builder().jdbcUrl(postgres.jdbcUrl())
                .user(user).password("app-pw").schema(schema).createSchema(false).build())) {
            long term = ((AcquireResult.Granted) store.leases().acquire("g", NodeInfo.of("a", "a"), Duration
                    .ofMinutes(1))
                    .join()).term();
            store.registry().register("g", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();
            store.events().appendEvent("g", "a", "leader_elected", java.util.Map.of("term", "1")).join();
            assertThat(store.registry().members("g").join()).hasSize(1);
            assertThat(store.events().recentEvents("g", 1).join()).hasSize(1);
            assertThat(store.registers().fencedWrite("g", "r", "a", term, new byte[] {1}).join().accepted()).isTrue();
            assertThat(store.maps().fencedPut("g", "m", "k", "a", term, new byte[] {1}).join().accepted()).isTrue();
            assertThat(store.registry().sweepExpired("g").join()).isEmpty();
            assertThat(store.leases().release("g", "a", term).join()).isTrue();
            assertThat(store.leaderRecords().writeLeader(new LeaderRecord("g", term, "a", 1, "127.0.0.1:7001")).join()
                    .accepted())
                    .isTrue();
            assertThat(store.leaderRecords().readLeader("g").join()).isPresent();
            SessionStore sessions = store.sessions().orElseThrow();
            String session = sessions.open(NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();
            assertThat(sessions.acquire("g", session, NodeInfo.of("a", "a")).join())
                    .isInstanceOf(AcquireResult.Granted.class);
            sessions.join("g", session).join();
            assertThat(sessions.keepAlive(session, Duration.ofMinutes(1)).join()).isTrue();
            assertThat(sessions.members("g").join()).containsOnlyKeys(session);
            assertThat(sessions.close(session).join()).isTrue();
        }
        assertThatThrownBy(() -> PostgresStore.connect(PostgresStoreOptions.builder().jdbcUrl(postgres.jdbcUrl())
                .user(user).password("app-pw").schema(freshSchema()).build()))
                .hasMessageContaining("Grant CREATE on the database");
    }

    @Test
    void aCustomSchemaFromTheUriKeepsItsOwnTermsApartFromTheDefault() {
        String schema = freshSchema();
        try (PostgresStore custom = PostgresStore.connect(postgres.uri() + "?schema=" + schema);
             PostgresStore standard = PostgresStore.connect(postgres.uri())) {
            custom.leases().acquire("shared", NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();

            assertThat(custom.describe()).endsWith("?schema=" + schema);
            assertThat(standard.leases().read("shared").join()).isEmpty();
            assertThat(count(postgres, "SELECT count(*) FROM " + schema + ".leader_lease")).isEqualTo(1);
        }
    }

    @Test
    void aNewerSchemaVersionIsRefusedWithOrWithoutCreateSchema() {
        String schema = freshSchema();
        PostgresStore.connect(options(schema).build()).close();
        execute(postgres, "INSERT INTO " + schema + ".schema_version (version) VALUES (4)");

        assertThatThrownBy(() -> PostgresStore.connect(options(schema).build()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("schema " + schema + " is at version 4, newer than version 3")
                .hasMessageContaining("upgrade baton-postgres");
        assertThatThrownBy(() -> PostgresStore.connect(options(schema).createSchema(false).build()))
                .hasMessageContaining("is at version 4");
    }

    @Test
    void aSchemaWithoutAVersionRowIsRefusedWithoutCreateSchema() {
        String schema = freshSchema();
        PostgresStore.connect(options(schema).build()).close();
        execute(postgres, "DELETE FROM " + schema + ".schema_version");

        assertThatThrownBy(() -> PostgresStore.connect(options(schema).createSchema(false).build()))
                .hasMessageContaining("schema " + schema + " has no row in schema_version");
    }
}
