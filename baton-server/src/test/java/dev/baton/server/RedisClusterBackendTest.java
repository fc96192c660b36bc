package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.testkit.RedisClusterTopology;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * {@code --backend redis-cluster://…} and {@code --leader-store redis-cluster://…}: accepted, or refused in one line;
 * and three {@code baton node} processes on a private Redis Cluster keep one leader per term, with rising terms,
 * while the master that serves their group's slot is killed and its replica promoted.
 */
class RedisClusterBackendTest {

    private static final String GROUP = "cluster-failover";
    private static final Duration SETTLE = Duration.ofSeconds(30);

    @Test
    void aClusterBackendConnectsThroughTheSeedNodes() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start();
                CoordinationStore store = Backends.openStore(uri(cluster))) {
            assertThat(store.describe()).isEqualTo(uri(cluster));
            try (LeaderRecordStore leaderStore = LeaderStores.open(uri(cluster), "g")) {
                assertThat(leaderStore.describe()).isEqualTo(store.describe());
            }
        }
    }

    @Test
    void aMalformedOrUnreachableClusterUriIsAUsageErrorWithoutThePassword() throws IOException {
        assertThatThrownBy(() -> Backends.openStore("redis-cluster://s3cret@127.0.0.1:7000/1"))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: uri is not a Redis Cluster URI")
                .hasMessageNotContaining("s3cret");
        int port = unusedPort();
        assertThatThrownBy(() -> Backends.openStore("redis-cluster://s3cret@127.0.0.1:" + port))
                .isInstanceOf(CliError.class)
                .hasMessageStartingWith("--backend: cannot reach Redis at redis-cluster://127.0.0.1:" + port + ": ")
                .hasMessageNotContaining("s3cret");
        LeaderStores.check("redis-cluster://127.0.0.1:7000");
        assertThatThrownBy(() -> Backends.openStore("cluster://127.0.0.1:7000")).isInstanceOf(CliError.class)
                .hasMessageContaining("redis-cluster://HOST:PORT[,HOST:PORT...]");
    }

    @Test
    void threeNodesKeepOneLeaderPerTermThroughAFailoverOfTheGroupsMaster() {
        try (RedisClusterTopology cluster = RedisClusterTopology.start(); NodeGroup nodes = new NodeGroup()) {
            for (String name : List.of("n1", "n2", "n3")) {
                nodes.start(name, "--backend", uri(cluster), "--group", GROUP, "--profile", "fast");
            }
            // Every node in its election before the master dies: a node that starts while the slot's master is down
            // and not yet replaced cannot reach its group and refuses to start, which is not what this test is about.
            await().atMost(SETTLE).until(() -> nodes.leaders().size() == 1
                    && nodes.all().stream().allMatch(n -> n.last("election-started").isPresent()));
            NodeProcess first = nodes.leaders().get(0);
            long firstTerm = first.lastAcquiredTerm();
            String termKey = "{" + GROUP + "}:term";
            int master = cluster.masterOf(termKey);
            cluster.awaitReplicated(master);

            cluster.killNode(master);
            int promoted = cluster.awaitFailover(master);
            // The group goes on on the promoted replica: a leader renews or acquires there.
            settle(nodes, cluster, promoted, "one leader renews or acquires on the promoted replica",
                    () -> nodes.leaders().size() == 1 && Long.toString(nodes.leaders().get(0).lastAcquiredTerm())
                            .equals(cluster.command(promoted, "GET", termKey)));

            NodeProcess leader = nodes.leaders().get(0);
            long leaderTerm = leader.lastAcquiredTerm();
            leader.sigkill();
            Instant killedAt = Instant.now();
            settle(nodes, cluster, promoted, "another node acquires a higher term after the leader was killed",
                    () -> nodes.leaders().stream().anyMatch(n -> n.lastAcquiredTerm() > leaderTerm
                            && Long.toString(n.lastAcquiredTerm()).equals(cluster.command(promoted, "GET", termKey))));
            assertThat(nodes.leaders().get(0).lastAcquiredTerm()).isGreaterThan(firstTerm);

            LeadershipHistory history = LeadershipHistory.of(nodes.all(), Map.of(leader.name(), killedAt));
            history.assertOneLeaderAtATimeWithRisingTerms();
            assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
            assertThat(first.lines().get(0).path("backend").asText()).startsWith("redis-cluster://");
        }
    }

    /**
     * Waits for {@code condition}; if it never holds, fails with every node's recent output and what the promoted
     * master holds for the group, so a failure on a CI machine explains itself.
     */
    private static void settle(NodeGroup nodes, RedisClusterTopology cluster, int promoted, String what,
            Callable<Boolean> condition) {
        try {
            await(what).atMost(SETTLE).ignoreExceptions().until(condition);
        } catch (ConditionTimeoutException e) {
            String held;
            try {
                held = "term " + cluster.command(promoted, "GET", "{" + GROUP + "}:term") + ", keys "
                        + cluster.command(promoted, "KEYS", "{" + GROUP + "}*");
            } catch (RuntimeException unreadable) {
                held = "unreadable: " + unreadable;
            }
            throw new AssertionError("not within " + SETTLE + ": " + what + "\npromoted node " + promoted + " holds "
                    + held + "\n" + nodes.describe(), e);
        }
    }

    private static String uri(RedisClusterTopology cluster) {
        return "redis-cluster://" + cluster.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
