package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ClusterStatus;
import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeState;
import dev.baton.core.StoreContact;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * While the store is down, a follower must not keep naming a leader that has demoted itself: once it has not heard from
 * the store for longer than its limit (one lease TTL), it says the store is unreachable instead.
 */
class StoreContactTest {

    private final Cluster cluster = new Cluster();
    private final Duration limit = cluster.config.storeContactLimit();
    private final Duration step = Duration.ofMillis(50);

    @Test
    void theLimitIsOneLeaseTtlUnlessFollowersPollLessOftenThanThat() {
        assertThat(limit).isEqualTo(cluster.config.leaseTtl());
        Duration rarePolls = cluster.config.leaseTtl().plusSeconds(1);

        Duration longer = cluster.config.toBuilder().checkInterval(rarePolls).build().storeContactLimit();

        assertThat(longer).isEqualTo(rarePolls.plus(cluster.config.electionJitter())
                .plus(cluster.config.storeTimeout()));
    }

    @Test
    void aHealthyFollowerAndLeaderNeverCountTheStoreAsUnreachable() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");

        for (int i = 0; i < 20 * 10; i++) { // twenty seconds, ten lease TTLs
            cluster.advance(Duration.ofMillis(100));
            assertThat(a.election.storeContact()).get().extracting(StoreContact::reachable).isEqualTo(true);
            assertThat(b.election.storeContact()).get().extracting(StoreContact::reachable).isEqualTo(true);
        }
        assertThat(b.election.leader()).map(LeaderInfo::nodeId).contains("a");
    }

    @Test
    void aFollowerStopsVouchingForTheLeaderOnceTheStoreIsSilentForOneLeaseTtl() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        cluster.advance(Duration.ofSeconds(1));

        a.link.hang();
        b.link.hang();
        // The leader demotes itself at its local deadline, well before the follower's limit.
        Duration silent = Duration.ZERO;
        while (silent.compareTo(limit) < 0) {
            assertThat(b.election.storeContact().orElseThrow().reachable()).isTrue();
            cluster.advance(step);
            silent = silent.plus(step);
        }
        cluster.advance(step);

        assertThat(a.election.state()).isNotEqualTo(NodeState.LEADER);
        assertThat(b.election.leader()).map(LeaderInfo::nodeId).contains("a"); // the stale view the API must not serve
        StoreContact contact = b.election.storeContact().orElseThrow();
        assertThat(contact.reachable()).isFalse();
        assertThat(contact.silence()).isGreaterThan(limit);
        assertThat(contact.describe()).startsWith("has not heard from the store for ");
    }

    @Test
    void theStoreIsReachableAgainWithTheFirstReplyAfterItHeals() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        b.link.hang();
        cluster.advance(limit.plus(step));
        assertThat(b.election.storeContact().orElseThrow().reachable()).isFalse();

        b.link.heal();
        cluster.scheduler.runUntilIdle();

        assertThat(b.election.storeContact().orElseThrow().reachable()).isTrue();
        assertThat(b.election.leader()).map(LeaderInfo::nodeId).contains(a.id);
    }

    @Test
    void aNodeThatNeverReachedTheStoreCountsItsSilenceFromItsStart() {
        Cluster.Node a = cluster.add("a");
        a.link.hang();
        cluster.advance(Duration.ofSeconds(30)); // created long before it starts: that time is not silence
        a.election.start();

        cluster.advance(limit.minus(step));
        assertThat(a.election.storeContact().orElseThrow().reachable()).isTrue();
        cluster.advance(step.multipliedBy(2));
        assertThat(a.election.storeContact().orElseThrow().reachable()).isFalse();
    }

    @Test
    void aSnapshotWithASilentStoreNamesNoLeaderAndSaysWhy() {
        LeaderInfo stale = new LeaderInfo("a", 4);
        StoreContact silent = new StoreContact(limit.plusSeconds(2), limit);

        ClusterStatus status = new ClusterStatus("orders", "b", NodeState.FOLLOWER, Optional.of(stale), List.of(),
                Optional.empty(), Optional.of(silent));
        ClusterStatus fresh = new ClusterStatus("orders", "b", NodeState.FOLLOWER, Optional.of(stale), List.of(),
                Optional.empty(), Optional.of(new StoreContact(Duration.ofMillis(300), limit)));

        assertThat(status.leader()).isEmpty();
        assertThat(status.ready()).isFalse();
        assertThat(status.problem()).contains("This node has not heard from the store for 5 s, longer than its limit"
                + " of 3 s");
        assertThat(fresh.leader()).contains(stale);
        assertThat(fresh.problem()).isEmpty();
    }
}
