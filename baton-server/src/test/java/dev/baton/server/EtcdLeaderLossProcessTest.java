package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three {@code baton node --backend etcd://…} processes on a private three-member etcd cluster, fast profile, while
 * the etcd members fail under them: the etcd leader is killed (the baton leader keeps or loses its lease, but never
 * shares a term), then, with two members left, the baton leader itself is killed and a node takes over under a
 * higher term. Awaitility bounds are generous correctness bounds, never performance claims.
 */
class EtcdLeaderLossProcessTest {

    private static final Duration SETTLE = Duration.ofSeconds(30);

    private EtcdTestBackend etcd;
    private final NodeGroup nodes = new NodeGroup();

    @BeforeEach
    void startEtcd() {
        etcd = EtcdTestBackend.start();
    }

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            etcd.close();
        }
    }

    @Test
    void exactlyOneLeaderPerTermWhileTheEtcdLeaderIsKilledAndTheNodeLeaderAfterIt() {
        for (String name : List.of("n1", "n2", "n3")) {
            nodes.start(name, "--backend", etcd.uri(), "--group", "etcd-loss", "--profile", "fast");
        }
        // Every node in its election before the etcd leader dies, so none is still connecting when it goes.
        await().atMost(SETTLE).until(() -> nodes.leaders().size() == 1
                && nodes.all().stream().allMatch(n -> n.last("election-started").isPresent()));
        NodeProcess first = nodes.leaders().get(0);
        long firstTerm = first.lastAcquiredTerm();

        int etcdLeader = etcd.cluster().killLeader();
        int next = etcd.cluster().awaitLeader();
        assertThat(next).isNotEqualTo(etcdLeader);
        // The group goes on over the two members left: a leader holds a lease (its own, renewed, or a successor's).
        await().atMost(SETTLE).until(() -> nodes.leaders().size() == 1
                && nodes.leaders().get(0).lastAcquiredTerm() >= firstTerm);

        NodeProcess leader = nodes.leaders().get(0);
        long leaderTerm = leader.lastAcquiredTerm();
        Map<String, Instant> killedAt = new HashMap<>();
        leader.sigkill();
        killedAt.put(leader.name(), Instant.now());
        await().atMost(SETTLE).until(() -> nodes.leaders().stream()
                .anyMatch(node -> node != leader && node.lastAcquiredTerm() > leaderTerm));

        LeadershipHistory history = LeadershipHistory.of(nodes.all(), killedAt);
        history.assertOneLeaderAtATimeWithRisingTerms();
        assertThat(history.tenures()).as(nodes.describe()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
    }
}
