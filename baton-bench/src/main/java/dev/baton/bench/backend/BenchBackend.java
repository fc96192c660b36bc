package dev.baton.bench.backend;

import dev.baton.core.store.CoordinationStore;
import dev.baton.etcd.EtcdStore;
import dev.baton.etcd.EtcdStoreOptions;
import dev.baton.postgres.PostgresStore;
import dev.baton.redis.RedisStore;
import java.util.Locale;

/**
 * A private server of one backend that a scenario starts, measures against and stops ({@link #close()}): the URI of
 * its store, fresh store connections, one raw round trip for calibration, and the words the phase tables use for its
 * store calls. Scenarios take their backend from {@code --backend}, so every harness runs unchanged on each.
 */
public sealed interface BenchBackend extends AutoCloseable permits RedisBackend, PostgresBackend, EtcdBackend {

    /** Starts a private server of {@code kind} on a free loopback port. */
    static BenchBackend start(BackendKind kind) throws Exception {
        return switch (kind) {
            case REDIS -> RedisBackend.start();
            case POSTGRES -> PostgresBackend.start();
            case ETCD -> EtcdBackend.start();
        };
    }

    /**
     * Connects a store to {@code uri} by its scheme ({@code redis://}, {@code redis-sentinel://},
     * {@code redis-cluster://}, {@code postgresql://} or {@code etcd://}, one host or several): what the failover
     * scenario's child JVMs do with the URI they are given.
     */
    static CoordinationStore connect(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("redis://") || lower.startsWith("rediss://") || lower.startsWith("redis-sentinel://")
                || lower.startsWith("redis-cluster://")) {
            return RedisStore.connect(uri);
        }
        if (lower.startsWith("postgresql://") || lower.startsWith("postgres://")) {
            return PostgresStore.connect(uri);
        }
        if (lower.startsWith("etcd://")) {
            // Sessions are off by default on etcd (older etcd releases can revoke a kept-alive lease); the scale
            // scenario measures them, as on a fixed etcd.
            return EtcdStore.connect(EtcdStoreOptions.builder().uri(uri).sessions(true).build());
        }
        throw new IllegalArgumentException(
                "not a redis://, redis-sentinel://, redis-cluster://, postgresql:// or etcd:// URI");
    }

    BackendKind kind();

    /** The URI Baton's store connects to (for PostgreSQL it holds the private server's password). */
    String uri();

    /** A new store on this server, with its own connections and threads; the caller closes it. */
    CoordinationStore connect();

    /** A markdown sentence: the server, its version, and the raw round trip a store call cannot go below. */
    String describe();

    /** The raw round trip of {@link #roundTrip()}, e.g. {@code PING}. */
    String roundTripName();

    /** How {@link #roundTrip()} is made, for the calibration table's notes. */
    String roundTripClient();

    /** One raw round trip on a connection of its own (not any candidate's); returns when the reply is in. */
    void roundTrip() throws Exception;

    /** Opens a listener and a sender for timing one push notice through the server; the caller closes it. */
    PushProbe openPushProbe() throws Exception;

    /** What this backend's store calls are made of, for the phase tables. */
    StorePath path();

    /** Stops the server and closes the connections this backend opened itself. */
    @Override
    void close();
}
