package dev.baton.server;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.RedisClusterTopology;
import dev.baton.testkit.RedisServer;
import java.util.stream.Collectors;

/**
 * A private backend server for node process tests, so one scenario runs against every backend: the subclasses of a
 * scenario only say which server to start.
 */
interface TestBackend extends AutoCloseable {

    /** The {@code --backend} value that reaches this server. */
    String uri();

    /** A client of our own on the same server, to check what the nodes stored. */
    default CoordinationStore connect() {
        return Backends.openStore(uri());
    }

    @Override
    void close();

    static TestBackend redis() {
        RedisServer server = RedisServer.start();
        return new TestBackend() {
            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** A private Redis Cluster (three masters with a replica each), named by all six nodes as seeds. */
    static TestBackend redisCluster() {
        RedisClusterTopology cluster = RedisClusterTopology.start();
        String uri = "redis-cluster://" + cluster.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
        return new TestBackend() {
            @Override
            public String uri() {
                return uri;
            }

            @Override
            public void close() {
                cluster.close();
            }
        };
    }

    static TestBackend postgres() {
        PostgresServer server = PostgresServer.start();
        return new TestBackend() {
            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }
}
