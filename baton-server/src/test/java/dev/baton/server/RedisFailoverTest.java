package dev.baton.server;

/** {@link FailoverScenario} on a private Redis. */
class RedisFailoverTest extends FailoverScenario {

    @Override
    TestBackend startBackend() {
        return TestBackend.redis();
    }
}
