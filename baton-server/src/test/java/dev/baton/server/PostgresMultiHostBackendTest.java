package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.PostgresStandbyTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code --backend postgresql://USER:PASSWORD@HOST1:PORT1,HOST2:PORT2/DB}: a primary and its standby in one URI; the
 * node's store uses whichever is writable, and no message or description shows the password.
 */
class PostgresMultiHostBackendTest {

    @Test
    void severalHostsReachTheWritableOneAndTheDescriptionHasNoPassword() throws Exception {
        Optional<String> why = PostgresStandbyTopology.whyUnavailable();
        Assumptions.assumeTrue(why.isEmpty(), () -> why.orElse(""));
        try (PostgresStandbyTopology pg = PostgresStandbyTopology.start()) {
            // The standby first: a store that took the first host that answers would fail to write.
            String uri = "postgresql://" + pg.user() + ":" + pg.password() + "@127.0.0.1:" + pg.standbyPort()
                    + ",127.0.0.1:" + pg.primary().port() + "/" + pg.database();
            try (CoordinationStore store = Backends.openStore(uri)) {
                AcquireResult granted = store.leases().acquire("g", NodeInfo.of("a", "a"), Duration.ofSeconds(5))
                        .get(10, TimeUnit.SECONDS);

                assertThat(granted).isInstanceOf(AcquireResult.Granted.class);
                assertThat(store.describe()).isEqualTo("postgresql://" + pg.user() + "@127.0.0.1:" + pg.standbyPort()
                        + ",127.0.0.1:" + pg.primary().port() + "/" + pg.database() + "?schema=baton");
            }
        }
    }

    @Test
    void noHostAnsweringIsAUsageErrorNamingThemWithoutThePassword() {
        String uri = "postgresql://baton:secret-pw@127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort()
                + "/baton";

        assertThatThrownBy(() -> Backends.openStore(uri)).isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: cannot reach PostgreSQL at 127.0.0.1:")
                .hasMessageContaining(",127.0.0.1:").hasMessageNotContaining("secret-pw");
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
