package dev.baton.bench.failover;

import dev.baton.testkit.RedisServer;

/**
 * One Redis with an append-only file ({@code appendfsync everysec}); its failover is a crash and a restart on its
 * data.
 */
final class SingleRedisTopology implements StoreTopology {

    private final RedisServer server;

    private SingleRedisTopology(RedisServer server) {
        this.server = server;
    }

    static StoreTopology start() {
        return new SingleRedisTopology(RedisServer.builder().appendOnly(true).start());
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String describe() {
        return "one Redis with an append-only file";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of Redis, restarted at once on its append-only file";
    }

    @Override
    public String uri() {
        return server.uri();
    }

    @Override
    public void killPrimary() {
        server.kill();
    }

    @Override
    public void recover() {
        server.restart();
    }

    @Override
    public void restore() {
        // A restarted server is the whole deployment again.
    }

    @Override
    public void close() {
        server.close();
    }
}
