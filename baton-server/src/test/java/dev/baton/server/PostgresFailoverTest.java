package dev.baton.server;

/** {@link FailoverScenario} on a private PostgreSQL: three {@code baton node --backend postgresql://…} processes. */
class PostgresFailoverTest extends FailoverScenario {

    @Override
    TestBackend startBackend() {
        return TestBackend.postgres();
    }
}
