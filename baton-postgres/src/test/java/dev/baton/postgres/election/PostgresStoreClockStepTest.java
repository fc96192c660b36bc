package dev.baton.postgres.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.postgres.PostgresStore;
import dev.baton.postgres.PostgresStoreOptions;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.StoreClock;
import dev.baton.testkit.StoreClockStepSuite;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL expires a lease on its own wall clock: what a step of that clock does to exclusion. Beside the suite's
 * cases, one of PostgreSQL's own: an acquire that waits on the lease row's lock while the clock steps back.
 */
class PostgresStoreClockStepTest extends StoreClockStepSuite {

    private static final Duration TTL = Duration.ofSeconds(2);

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        Assumptions.assumeTrue(PostgresServer.whyStoreClockUnavailable().isEmpty(),
                () -> PostgresServer.whyStoreClockUnavailable().orElseThrow());
        postgres = PostgresServer.builder().withStoreClock().start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    /**
     * {@code now()} is the time the transaction began. An acquire that queued on the lease row's lock before the clock
     * stepped back, and was let through after another node's grant written on the stepped clock, compared that grant's
     * expiry with a time from before the step: by the step's size later than the clock that wrote it, so a lease with
     * seconds to run looked expired and was granted a second time. The expiry must be judged on the clock read once
     * the row is locked.
     */
    @Test
    void anAcquireQueuedOnTheRowBeforeTheClockSteppedBackDoesNotTakeALeaseGrantedAfterIt() throws Exception {
        String group = "queued-" + UUID.randomUUID();
        try (CoordinationStore a = newStore(); CoordinationStore b = newStore();
                Connection other = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(),
                        postgres.password())) {
            NodeInfo nodeA = NodeInfo.of("a", "a");
            AcquireResult first = a.leases().acquire(group, nodeA, TTL).get(5, TimeUnit.SECONDS);
            long term = ((AcquireResult.Granted) first).term();
            assertThat(a.leases().release(group, "a", term).get(5, TimeUnit.SECONDS)).isTrue();

            other.setAutoCommit(false);
            try (Statement lock = other.createStatement()) {
                lock.execute("SELECT 1 FROM baton.leader_lease WHERE group_name = '" + group + "' FOR UPDATE");
            }
            CompletableFuture<AcquireResult> queued = b.leases().acquire(group, NodeInfo.of("b", "b"), TTL);
            await().atMost(Duration.ofSeconds(5)).until(() -> waitingOnALock(other, group));
            storeClock().step(Duration.ofSeconds(-3));
            // Another node's grant, written on the stepped clock while b's acquire waits: what a's acquire would
            // write had it reached the row first.
            try (Statement grant = other.createStatement()) {
                grant.executeUpdate("UPDATE baton.leader_lease SET leader_id = 'a', term = term + 1, "
                        + "acquired_at = clock_timestamp(), expires_at = clock_timestamp() + interval '2 seconds' "
                        + "WHERE group_name = '" + group + "'");
            }
            other.commit();

            AcquireResult result = queued.get(5, TimeUnit.SECONDS);

            assertThat(result).as("the lease 'a' was granted on the stepped clock has 2 s to run")
                    .isInstanceOf(AcquireResult.Denied.class);
        }
    }

    private static boolean waitingOnALock(Connection other, String group) throws Exception {
        try (Statement query = other.createStatement();
                ResultSet rows = query.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                        + "'Lock' AND query LIKE '%leader_lease%'")) {
            rows.next();
            return rows.getLong(1) > 0;
        }
    }

    @Override
    protected CoordinationStore newStore() {
        return PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri())
                .statementTimeout(Duration.ofSeconds(1)).connectTimeout(Duration.ofMillis(500))
                .listenReconnectInterval(Duration.ofMillis(200)).build());
    }

    @Override
    protected StoreClock storeClock() {
        return postgres.storeClock();
    }
}
