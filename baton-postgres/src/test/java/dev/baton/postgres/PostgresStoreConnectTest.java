package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.StoreException;
import dev.baton.testkit.PostgresServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Failing to connect says why, in words that name the server, database or user, and never the password. */
class PostgresStoreConnectTest {

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void anUnreachableServerIsNamedByHostAndPort() throws IOException {
        int port = unusedPort();

        assertThatThrownBy(() -> PostgresStore.connect("postgresql://baton:hunter2@127.0.0.1:" + port + "/baton"))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("cannot reach PostgreSQL at 127.0.0.1:" + port)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void aWrongPasswordSaysAuthenticationFailedForTheUser() {
        String uri = "postgresql://baton:wrong-hunter2@127.0.0.1:" + postgres.port() + "/baton";

        assertThatThrownBy(() -> PostgresStore.connect(uri))
                .isInstanceOf(StoreException.class)
                .hasMessage("authentication failed for user baton at 127.0.0.1:" + postgres.port())
                .hasMessageNotContaining("wrong-hunter2");
    }

    @Test
    void aMissingDatabaseIsNamed() {
        String uri = "postgresql://baton:" + postgres.password() + "@127.0.0.1:" + postgres.port() + "/nowhere";

        assertThatThrownBy(() -> PostgresStore.connect(uri))
                .hasMessage("database nowhere does not exist at 127.0.0.1:" + postgres.port())
                .hasMessageNotContaining(postgres.password());
    }

    @Test
    void describeShowsUserHostDatabaseAndSchemaButNotThePassword() {
        try (PostgresStore store = PostgresStore.connect(postgres.uri())) {
            assertThat(store.describe()).isEqualTo("postgresql://baton@127.0.0.1:" + postgres.port()
                    + "/baton?schema=baton");
            assertThat(store.toString()).doesNotContain(postgres.password());
        }
    }

    @Test
    void callsOnAClosedStoreFailAtOnce() {
        PostgresStore store = PostgresStore.connect(postgres.uri());
        store.close();
        store.close();

        assertThatThrownBy(() -> store.leases().acquire("g", NodeInfo.of("a", "a"), Duration.ofSeconds(1)).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreException.class)
                .hasMessageContaining("the store is closed");
        assertThatThrownBy(() -> store.leases().watch("g", notice -> { }).ready().join())
                .hasMessageContaining("the store is closed");
    }
}
