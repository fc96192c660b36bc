package dev.baton.server;

/** {@link FailoverScenario} on a private Redis Cluster: {@code --backend redis-cluster://…}. */
class RedisClusterFailoverTest extends FailoverScenario {

    @Override
    TestBackend startBackend() {
        return TestBackend.redisCluster();
    }
}
