package dev.baton.server;

/** {@link PausedLeaderFencingScenario} on a private Redis. */
class PausedLeaderFencingTest extends PausedLeaderFencingScenario {

    @Override
    TestBackend startBackend() {
        return TestBackend.redis();
    }
}
