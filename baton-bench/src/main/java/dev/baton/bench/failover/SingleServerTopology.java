package dev.baton.bench.failover;

import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.RedisServer;

/**
 * One server, the baseline each replicated deployment is read against: its failover is a crash (SIGKILL) and a
 * restart on its data, after which the restarted server is the whole deployment again. {@link #redis()} and
 * {@link #postgresql()} wrap the testkit's {@link RedisServer} and {@link PostgresServer}.
 */
final class SingleServerTopology implements StoreTopology {

    private final String name;
    private final String describe;
    private final String failoverNote;
    private final String uri;
    private final Runnable kill;
    private final Runnable restart;
    private final Runnable close;

    private SingleServerTopology(String name, String describe, String failoverNote, String uri, Runnable kill,
            Runnable restart, Runnable close) {
        this.name = name;
        this.describe = describe;
        this.failoverNote = failoverNote;
        this.uri = uri;
        this.kill = kill;
        this.restart = restart;
        this.close = close;
    }

    /** One Redis with an append-only file ({@code appendfsync everysec}), restarted on its file (same port). */
    static StoreTopology redis() {
        RedisServer redis = RedisServer.builder().appendOnly(true).start();
        return new SingleServerTopology("redis", "one Redis with an append-only file",
                "SIGKILL of Redis, restarted at once on its append-only file", redis.uri(), redis::kill,
                redis::restart, redis::close);
    }

    /** One PostgreSQL: SIGKILL of every backend, then a restart on its data (crash recovery), same port. */
    static StoreTopology postgresql() {
        PostgresServer postgres = PostgresServer.start();
        return new SingleServerTopology("postgresql", "one PostgreSQL",
                "SIGKILL of PostgreSQL, restarted at once (crash recovery)", postgres.uri(), postgres::kill,
                postgres::restart, postgres::close);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public String failoverNote() {
        return failoverNote;
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public void killPrimary() {
        kill.run();
    }

    @Override
    public void recover() {
        restart.run();
    }

    @Override
    public void restore() {
        // A restarted server is the whole deployment again.
    }

    @Override
    public void close() {
        close.run();
    }
}
