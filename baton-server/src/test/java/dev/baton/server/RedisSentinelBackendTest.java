package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.testkit.RedisSentinelTopology;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** {@code --backend redis-sentinel://…} and {@code --leader-store redis-sentinel://…}: accepted, or refused in one line. */
class RedisSentinelBackendTest {

    @Test
    void aSentinelBackendConnectsToThePrimaryTheSentinelsName() {
        try (RedisSentinelTopology redis = RedisSentinelTopology.start();
                CoordinationStore store = Backends.openStore(redis.sentinelUri())) {
            assertThat(store.describe()).startsWith("redis-sentinel://127.0.0.1:")
                    .endsWith("/0#" + RedisSentinelTopology.MASTER_NAME);
            try (LeaderRecordStore leaderStore = LeaderStores.open(redis.sentinelUri(), "g")) {
                assertThat(leaderStore.describe()).isEqualTo(store.describe());
            }
        }
    }

    @Test
    void aMalformedOrUnreachableSentinelUriIsAUsageErrorWithoutThePassword() throws IOException {
        assertThatThrownBy(() -> Backends.openStore("redis-sentinel://s3cret@127.0.0.1:26379"))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: uri must name the Sentinels and the primary's master name")
                .hasMessageNotContaining("s3cret");
        int port = unusedPort();
        assertThatThrownBy(() -> Backends.openStore("redis-sentinel://s3cret@127.0.0.1:" + port + "#orders"))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: cannot reach Redis at redis-sentinel://127.0.0.1:" + port
                        + "/0#orders: ")
                .hasMessageNotContaining("s3cret");
        LeaderStores.check("redis-sentinel://127.0.0.1:26379#orders");
        assertThatThrownBy(() -> Backends.openStore("sentinel://127.0.0.1:26379")).isInstanceOf(CliError.class)
                .hasMessageContaining("redis-sentinel://HOST:PORT[,HOST:PORT...][/DB]#MASTER");
    }

    @Test
    void aBadReplicaWaitParameterIsAUsageErrorOfOneLine() {
        assertThatThrownBy(() -> Backends.openStore("redis-sentinel://s3cret@127.0.0.1:26379/0?waitReplicas=one"
                + "&waitReplicasTimeout=200ms#orders"))
                .isInstanceOf(CliError.class)
                .hasMessage("--backend: uri parameter waitReplicas must be a number of replicas (0 or more), was "
                        + "'one'");
        assertThatThrownBy(() -> Backends.openStore("redis-sentinel://127.0.0.1:26379?sentinelMasterId=orders"
                + "&waitReplicas=1"))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: uri parameter waitReplicas needs waitReplicasTimeout too");
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
