package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.eventlog.ClusterEventRecorder;
import dev.baton.core.store.ClusterEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seed's cluster_events history, written by each node through its own link to the store. */
class ClusterEventRecorderTest {

    private final Cluster cluster = new Cluster();

    private Cluster.Node recorded(String id) {
        Cluster.Node node = cluster.add(id);
        ClusterEventRecorder.attach(node.election, node.link.events());
        node.election.start();
        cluster.scheduler.runUntilIdle();
        return node;
    }

    /** Oldest first, as "node:type". */
    private List<String> history() {
        List<ClusterEvent> events = new ArrayList<>(cluster.store.events().recentEvents(cluster.group, 1000).join());
        Collections.reverse(events);
        return events.stream().map(e -> e.nodeId() + ":" + e.type()).toList();
    }

    @Test
    void electionsLeadershipsAndMembersAreRecorded() {
        Cluster.Node a = recorded("a");
        recorded("b");

        a.election.closeAsync();
        cluster.scheduler.runUntilIdle();

        assertThat(history()).containsExactly(
                "a:election_started", "a:leader_elected",
                "b:election_started",
                "a:node_joined",
                "a:leader_lost",
                "b:election_started", "b:leader_elected",
                "b:node_left");
        ClusterEvent lost = cluster.store.events().recentEvents(cluster.group, 1000).join().stream()
                .filter(e -> e.type().equals("leader_lost")).findFirst().orElseThrow();
        assertThat(lost.data()).isEqualTo(Map.of("term", "1", "reason", "RELEASED"));
        assertThat(cluster.store.events().recentEvents(cluster.group, 1).join().get(0).data()).isEqualTo(Map
                .of("node_id", "a"));
    }

    @Test
    void aDegradedPeriodIsWrittenOnceTheStoreAnswersAgain() {
        Cluster.Node a = recorded("a");
        a.link.fail();
        cluster.advance(cluster.config.leaseTtl());
        assertThat(history()).containsExactly("a:election_started", "a:leader_elected");

        a.link.heal();
        cluster.advance(cluster.config.checkInterval().multipliedBy(4));

        assertThat(history()).containsSubsequence(
                "a:leader_elected", "a:cluster_degraded", "a:leader_lost", "a:cluster_recovered", "a:leader_elected");
        assertThat(history()).filteredOn(e -> e.endsWith("cluster_degraded")).hasSize(1);
    }

    @Test
    void renewalsAreNotRecorded() {
        recorded("a");
        cluster.advance(Duration.ofMinutes(5));

        assertThat(history()).containsExactly("a:election_started", "a:leader_elected");
    }
}
