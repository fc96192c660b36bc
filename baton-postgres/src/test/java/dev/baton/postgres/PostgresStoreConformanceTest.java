package dev.baton.postgres;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.StoreConformanceSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The PostgreSQL store passes the same contract as every other backend, on a private server. */
class PostgresStoreConformanceTest extends StoreConformanceSuite {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @Override
    protected CoordinationStore newStore() {
        return PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).poolSize(2).build());
    }
}
