package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.LeaderRecordStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** {@code --backend etcd://…} and {@code --leader-store etcd://…}: accepted, or refused in one line. */
class EtcdBackendTest {

    @Test
    void anEtcdBackendConnectsToEveryMemberItNames() {
        try (EtcdTestBackend etcd = EtcdTestBackend.start();
                CoordinationStore store = Backends.openStore(etcd.uri())) {
            assertThat(store.describe()).isEqualTo(etcd.uri() + "/baton");
            try (LeaderRecordStore leaderStore = LeaderStores.open(etcd.uri() + "/orders", "g")) {
                assertThat(leaderStore.describe()).isEqualTo(etcd.uri() + "/orders");
            }
        }
    }

    @Test
    void aMalformedOrUnreachableEtcdUriIsAUsageError() throws IOException {
        assertThatThrownBy(() -> Backends.openStore("etcd://"))
                .isInstanceOf(CliError.class)
                .hasMessage("--backend: an etcd URI names at least one host:port, was: etcd://");
        assertThatThrownBy(() -> Backends.openStore("etcd://127.0.0.1:2379,:2380"))
                .isInstanceOf(CliError.class)
                .hasMessageContaining("':2380'");
        int port = unusedPort();
        assertThatThrownBy(() -> Backends.openStore("etcd://127.0.0.1:" + port))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: cannot reach etcd at etcd://127.0.0.1:" + port + "/baton: ");
        LeaderStores.check("etcd://127.0.0.1:2379");
        assertThatThrownBy(() -> Backends.openStore("etc://127.0.0.1:2379")).isInstanceOf(CliError.class)
                .hasMessageContaining("etcd://HOST:PORT[,HOST:PORT...][/PREFIX]");
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
