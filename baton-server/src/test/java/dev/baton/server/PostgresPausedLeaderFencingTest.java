package dev.baton.server;

/** {@link PausedLeaderFencingScenario} on a private PostgreSQL. */
class PostgresPausedLeaderFencingTest extends PausedLeaderFencingScenario {

    @Override
    TestBackend startBackend() {
        return TestBackend.postgres();
    }
}
