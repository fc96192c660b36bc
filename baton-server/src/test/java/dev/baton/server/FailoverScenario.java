package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.ElectionConfig;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.CoordinationStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three {@code baton node} processes on a private backend server, fast profile: one leader at a time, crash failover within
 * the lease TTL (plus a second of slack for a loaded machine: a correctness bound, not a benchmark), and a graceful
 * handover that does not wait for expiry.
 */
abstract class FailoverScenario {

    private static final Duration LEASE_TTL = ElectionConfig.fast().leaseTtl();
    private static final Duration STARTUP = Duration.ofSeconds(30);

    private TestBackend backend;
    private final NodeGroup nodes = new NodeGroup();

    /** Starts the private server the nodes will share. */
    abstract TestBackend startBackend();

    @BeforeEach
    void startServer() {
        backend = startBackend();
    }

    @AfterEach
    void stopEverything() {
        try {
            nodes.close();
        } finally {
            backend.close();
        }
    }

    @Test
    void oneLeaderFailsOverOnSigkillAndHandsOverOnSigterm() {
        for (String name : List.of("n1", "n2", "n3")) {
            nodes.start(name, "--backend", backend.uri(), "--group", "failover", "--profile", "fast");
        }
        await().atMost(STARTUP).until(() -> nodes.leaders().size() == 1
                && nodes.all().stream().allMatch(node -> !node.events("election-completed").isEmpty()));
        NodeProcess first = nodes.leaders().get(0);
        long firstTerm = first.lastAcquiredTerm();

        first.sigkill();
        Instant killedAt = Instant.now();
        await().atMost(LEASE_TTL.plusSeconds(1)).pollInterval(Duration.ofMillis(10))
                .until(() -> nodes.leaders().stream().anyMatch(node -> node.lastAcquiredTerm() > firstTerm));
        NodeProcess second = nodes.leaders().get(0);
        long secondTerm = second.lastAcquiredTerm();
        assertThat(second).isNotSameAs(first);

        second.sigterm();
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10))
                .until(() -> nodes.leaders().stream().anyMatch(node -> node.lastAcquiredTerm() > secondTerm));
        NodeProcess third = nodes.leaders().get(0);
        assertThat(third).isNotSameAs(first).isNotSameAs(second);

        assertThat(second.awaitExit(Duration.ofSeconds(10))).as(second.describe()).isZero();
        assertThat(second.last("leadership-lost").orElseThrow().path("reason").asText()).isEqualTo("RELEASED");
        assertThat(second.last("leadership-lost").orElseThrow().path("term").asLong()).isEqualTo(secondTerm);
        LeadershipHistory history = LeadershipHistory.of(nodes.all(), Map.of(first.name(), killedAt));
        history.assertOneLeaderAtATimeWithRisingTerms();
        assertThat(history.tenures()).extracting(LeadershipHistory.Tenure::node)
                .containsExactly(first.name(), second.name(), third.name());
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
        assertTheStoresEventLogTellsTheSameStory(List.of(first, second, third), secondTerm);
        String scheme = backend.uri().substring(0, backend.uri().indexOf("://") + 3);
        assertThat(first.lines().get(0).path("backend").asText()).startsWith(scheme);
    }

    /** The cluster_events history an operator reads afterwards: every leadership, and the graceful release. */
    private void assertTheStoresEventLogTellsTheSameStory(List<NodeProcess> leaders, long releasedTerm) {
        try (CoordinationStore store = backend.connect()) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                List<ClusterEvent> events = store.events().recentEvents("failover", 500).get(5, TimeUnit.SECONDS);
                for (NodeProcess leader : leaders) {
                    assertThat(events).as("leader_elected of %s", leader.name())
                            .anySatisfy(e -> {
                                assertThat(e.type()).isEqualTo("leader_elected");
                                assertThat(e.nodeId()).isEqualTo(leader.name());
                                assertThat(e.data()).containsEntry("term", Long.toString(leader.lastAcquiredTerm()));
                            });
                }
                assertThat(events).anySatisfy(e -> {
                    assertThat(e.type()).isEqualTo("leader_lost");
                    assertThat(e.data()).containsEntry("term", Long.toString(releasedTerm))
                            .containsEntry("reason", "RELEASED");
                });
            });
        }
    }
}
