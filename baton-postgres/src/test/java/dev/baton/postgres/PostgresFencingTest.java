package dev.baton.postgres;

import static dev.baton.postgres.RawPostgres.count;
import static dev.baton.postgres.RawPostgres.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.fencing.StaleTermException;
import dev.baton.core.store.AcquireResult;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDBC fencing guard: a deposed leader's write is refused inside its own transaction, and nothing slips in. */
class PostgresFencingTest {

    private static final Duration LONG = Duration.ofMinutes(1);
    private static final AtomicInteger TABLES = new AtomicInteger();

    private static PostgresServer postgres;

    private PostgresStore store;
    private PostgresStore contender;
    private String group;
    private String jobs;
    private PostgresFencing fencing;

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
        contender = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri())
                .applicationName("fencing-contender").build());
        group = "fencing-" + UUID.randomUUID();
        jobs = "public.jobs_" + TABLES.incrementAndGet();
        execute(postgres, "CREATE TABLE " + jobs + " (id text PRIMARY KEY, term bigint NOT NULL)");
        fencing = store.fencing(group);
    }

    @AfterEach
    void close() {
        store.close();
        contender.close();
    }

    private long granted(PostgresStore on, String nodeId, Duration ttl) {
        AcquireResult result = on.leases().acquire(group, NodeInfo.of(nodeId, nodeId), ttl).join();
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    private PostgresFencing.FencedWork<Integer> insertJob(String id, long term) {
        return c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + jobs + " (id, term) VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setLong(2, term);
                return ps.executeUpdate();
            }
        };
    }

    /** A leadership of {@code term} on {@code clock} whose local deadline is one millisecond away. */
    private Leadership leadership(long term, FakeClock clock) {
        return new Leadership(group, "a", term, clock.nanoTime() + 1_000_000, clock, t -> true);
    }

    private long jobCount() {
        return count(postgres, "SELECT count(*) FROM " + jobs);
    }

    @Test
    void theCurrentTermsWorkIsCommitted() throws SQLException {
        long term = granted(store, "a", LONG);

        try (Connection c = RawPostgres.connect(postgres)) {
            assertThat(fencing.execute(c, term, insertJob("j1", term))).isEqualTo(1);
            assertThat(c.getAutoCommit()).as("autocommit restored").isTrue();
        }

        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aStaleLeadersWriteIsRefusedAndLeavesTheTableUntouched() throws SQLException {
        long old = granted(store, "a", LONG);
        store.leases().release(group, "a", old).join();
        long current = granted(contender, "b", LONG);

        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.execute(c, old, insertJob("stale", old)))
                    .isInstanceOfSatisfying(StaleTermException.class, stale -> {
                        assertThat(stale.term()).isEqualTo(old);
                        assertThat(stale.currentTerm()).isEqualTo(current);
                    });
            assertThat(c.getAutoCommit()).isTrue();
            assertThat(fencing.execute(c, current, insertJob("fresh", current))).isEqualTo(1);
        }

        assertThat(count(postgres, "SELECT count(*) FROM " + jobs + " WHERE id = 'stale'")).isZero();
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aLeadershipPastItsDeadlineIsRefusedWhileItsTermIsStillTheNewest() throws SQLException {
        long term = granted(store, "a", LONG);
        FakeClock clock = new FakeClock();
        Leadership expired = leadership(term, clock);
        clock.advance(Duration.ofMillis(1));

        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.execute(c, expired, insertJob("expired", term)))
                    .isInstanceOfSatisfying(LeadershipNotValidException.class,
                            refused -> assertThat(refused.term()).isEqualTo(term))
                    .hasMessageContaining("leadership of term " + term + " is no longer valid");
            assertThat(c.getAutoCommit()).isTrue();
            assertThat(fencing.execute(c, term, insertJob("by-term", term)))
                    .as("the term alone is still the group's newest")
                    .isEqualTo(1);
        }

        assertThat(count(postgres, "SELECT count(*) FROM " + jobs + " WHERE id = 'expired'")).isZero();
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aValidLeadershipWritesAndALostOneIsRefused() throws SQLException {
        long term = granted(store, "a", LONG);
        FakeClock clock = new FakeClock();
        Leadership lost = new Leadership(group, "a", term, clock.nanoTime() + 1_000_000, clock, t -> false);

        try (Connection c = RawPostgres.connect(postgres)) {
            assertThat(fencing.execute(c, leadership(term, clock), insertJob("valid", term))).isEqualTo(1);
            assertThatThrownBy(() -> fencing.execute(c, lost, insertJob("lost", term)))
                    .isInstanceOf(LeadershipNotValidException.class);
        }

        assertThat(count(postgres, "SELECT count(*) FROM " + jobs + " WHERE id = 'lost'")).isZero();
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void inTheCallersOwnTransactionALeadershipNoLongerValidRollsBackEverythingInIt() throws SQLException {
        long term = granted(store, "a", LONG);
        FakeClock clock = new FakeClock();
        Leadership expired = leadership(term, clock);
        clock.advance(Duration.ofMillis(1));

        try (Connection c = RawPostgres.connect(postgres)) {
            c.setAutoCommit(false);
            insertJob("before-the-check", term).run(c);
            assertThatThrownBy(() -> fencing.execute(c, expired, insertJob("expired", term)))
                    .isInstanceOf(LeadershipNotValidException.class);
            c.commit();
        }

        assertThat(jobCount()).isZero();
    }

    @Test
    void theDataSourceFormAndTheBareCheckRefuseALeadershipNoLongerValid() throws SQLException {
        long term = granted(store, "a", LONG);
        FakeClock clock = new FakeClock();
        Leadership expired = leadership(term, clock);
        clock.advance(Duration.ofMillis(1));
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());

        assertThatThrownBy(() -> fencing.execute(dataSource, expired, insertJob("expired", term)))
                .isInstanceOf(LeadershipNotValidException.class);
        try (Connection c = RawPostgres.connect(postgres)) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> fencing.check(c, expired)).isInstanceOf(LeadershipNotValidException.class);
            c.rollback();
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void aLeadershipOfAnotherGroupIsAMistake() throws SQLException {
        long term = granted(store, "a", LONG);
        FakeClock clock = new FakeClock();
        Leadership other = new Leadership("another-group", "a", term, clock.nanoTime() + 1_000_000, clock, t -> true);

        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.execute(c, other, insertJob("other", term)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another-group");
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void aTermNeverIssuedIsRefused() throws SQLException {
        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.execute(c, 1, insertJob("early", 1)))
                    .isInstanceOfSatisfying(StaleTermException.class,
                            stale -> assertThat(stale.currentTerm()).isZero());
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void aConcurrentAcquireCannotSlipInBetweenTheCheckAndTheWrite() throws SQLException {
        long term = granted(store, "a", Duration.ofMillis(300));
        CompletableFuture<AcquireResult> takeover = new CompletableFuture<>();

        try (Connection c = RawPostgres.connect(postgres)) {
            fencing.execute(c, term, connection -> {
                // The lease expires while our transaction holds the share lock; a contender now tries to take it.
                await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().read(group).join().isEmpty());
                contender.leases().acquire(group, NodeInfo.of("b", "b"), LONG).whenComplete((result, error) -> {
                    if (error != null) {
                        takeover.completeExceptionally(error);
                    } else {
                        takeover.complete(result);
                    }
                });
                await().atMost(Duration.ofSeconds(5)).until(() -> count(postgres, "SELECT count(*) FROM "
                        + "pg_stat_activity WHERE application_name = 'fencing-contender' AND wait_event_type = 'Lock'")
                        == 1);
                assertThat(takeover).as("the acquire waits for our transaction").isNotDone();
                return insertJob("under-old-term", term).run(connection);
            });
        }

        AcquireResult result = takeover.join();
        assertThat(result).isInstanceOfSatisfying(AcquireResult.Granted.class,
                granted -> assertThat(granted.term()).isGreaterThan(term));
        assertThat(jobCount()).isEqualTo(1);
        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.execute(c, term, insertJob("too-late", term)))
                    .isInstanceOf(StaleTermException.class);
        }
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void inTheCallersOwnTransactionAStaleTermRollsBackEverythingInIt() throws SQLException {
        long old = granted(store, "a", LONG);
        store.leases().release(group, "a", old).join();
        long current = granted(contender, "b", LONG);

        try (Connection c = RawPostgres.connect(postgres)) {
            c.setAutoCommit(false);
            insertJob("before-the-check", old).run(c);
            assertThatThrownBy(() -> fencing.execute(c, old, insertJob("stale", old)))
                    .isInstanceOf(StaleTermException.class);
            c.commit();

            fencing.execute(c, current, insertJob("fresh", current));
            assertThat(count(postgres, "SELECT count(*) FROM " + jobs)).as("not committed yet").isZero();
            c.commit();
        }

        assertThat(count(postgres, "SELECT count(*) FROM " + jobs + " WHERE id = 'fresh'")).isEqualTo(1);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aFailingWorkIsRolledBackAndTheDataSourceFormClosesItsConnection() {
        long term = granted(store, "a", LONG);
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
        dataSource.setApplicationName("fencing-datasource");

        assertThatThrownBy(() -> fencing.execute(dataSource, term, c -> {
            insertJob("j1", term).run(c);
            return insertJob("j1", term).run(c);
        })).isInstanceOf(SQLException.class).hasMessageContaining("duplicate key");

        assertThat(jobCount()).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> RawPostgres.backends(postgres, "fencing-datasource") == 0);
    }

    @Test
    void theBareCheckNeedsAnOpenTransaction() throws SQLException {
        long term = granted(store, "a", LONG);
        try (Connection c = RawPostgres.connect(postgres)) {
            assertThatThrownBy(() -> fencing.check(c, term)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("setAutoCommit(false)");
            c.setAutoCommit(false);
            fencing.check(c, term);
            c.rollback();
        }
        assertThat(PostgresFencing.forGroup(group).schema()).isEqualTo("baton");
    }
}
