package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three etcd members, started privately; the test takes a few seconds. Skipped where etcd is not installed. */
@Timeout(60)
class EtcdClusterTest {

    private static final Duration GENEROUS = Duration.ofSeconds(20);

    @Test
    void aWriteThroughOneMemberIsReadThroughAnotherAndAKilledLeaderIsReplaced() {
        Optional<String> unavailable = EtcdCluster.whyUnavailable();
        assumeTrue(unavailable.isEmpty(), () -> "skipping the etcd cluster: " + unavailable.orElseThrow());
        List<String> endpoints;
        try (EtcdCluster etcd = EtcdCluster.start()) {
            endpoints = etcd.clientEndpoints();
            assertThat(endpoints).hasSize(3).allMatch(e -> e.startsWith("http://127.0.0.1:"));

            etcd.put(0, "baton/leader", "node-a");
            assertThat(etcd.get(1, "baton/leader")).contains("node-a");
            assertThat(etcd.get(2, "baton/missing")).isEmpty();

            int leader = etcd.leader();
            assertThat(etcd.killLeader()).isEqualTo(leader);
            assertThat(etcd.isMemberRunning(leader)).isFalse();

            int next = etcd.awaitLeader();
            assertThat(next).isNotEqualTo(leader);
            int survivor = 3 - leader - next;
            etcd.put(next, "baton/leader", "node-b");
            assertThat(etcd.get(survivor, "baton/leader")).contains("node-b");

            // The killed member rejoins with its data and catches up.
            etcd.restartMember(leader);
            await().atMost(GENEROUS).ignoreExceptions()
                    .until(() -> etcd.get(leader, "baton/leader").equals(Optional.of("node-b")));
        }
        assertThat(endpoints).noneMatch(EtcdClusterTest::accepts);
    }

    private static boolean accepts(String endpoint) {
        URI uri = URI.create(endpoint);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
