package dev.baton.bench.failover;

import dev.baton.testkit.PostgresServer;

/** One PostgreSQL; its failover is a crash (SIGKILL of every backend) and a restart on its data (crash recovery). */
final class SinglePostgresTopology implements StoreTopology {

    private final PostgresServer server;

    private SinglePostgresTopology(PostgresServer server) {
        this.server = server;
    }

    static StoreTopology start() {
        return new SinglePostgresTopology(PostgresServer.start());
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public String describe() {
        return "one PostgreSQL";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of PostgreSQL, restarted at once (crash recovery)";
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
