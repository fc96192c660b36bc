package dev.baton.postgres.election;

import dev.baton.core.store.CoordinationStore;
import dev.baton.postgres.PostgresStore;
import dev.baton.postgres.PostgresStoreOptions;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.StoreClock;
import dev.baton.testkit.StoreClockStepSuite;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * PostgreSQL expires a lease ({@code expires_at <= now()}) on its own wall clock: what a step of that clock does to
 * exclusion.
 */
class PostgresStoreClockStepTest extends StoreClockStepSuite {

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
