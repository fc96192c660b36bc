package dev.baton.server;

import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.RedisServer;

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
