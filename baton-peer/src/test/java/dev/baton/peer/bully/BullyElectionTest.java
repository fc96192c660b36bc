package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.ElectionCompleted;
import dev.baton.core.ElectionEvent.ElectionStarted;
import dev.baton.core.ElectionEvent.LeaderChanged;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.MemberState;
import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.Election;
import dev.baton.peer.bully.BullyMessage.GroupMember;
import dev.baton.peer.sim.NetworkEvent.Sent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Bully elections on the simulated network: failover to the highest live process with the next store term, ELECTION
 * only to higher processes, the hold-down, step-down and close, the leader store as the arbiter after a partition,
 * and the leadership's validity against the store.
 */
class BullyElectionTest {

    @Test
    void theFirstProcessFoundsTheGroupAndTheOthersJoinUnderTheNextProcessIds() {
        BullyCluster cluster = BullyCluster.fast(1, 3).startInOrder();

        assertThat(cluster.leader().address).isEqualTo(cluster.address(1));
        assertThat(cluster.node(1).pid()).isEqualTo(1);
        assertThat(cluster.node(2).pid()).isEqualTo(2);
        assertThat(cluster.node(3).pid()).isEqualTo(3);
        assertThat(cluster.store.record()).hasValueSatisfying(r -> {
            assertThat(r.term()).as("the wall clock in µs when the group was founded")
                    .isBetween(cluster.startMicros, cluster.wallMicros());
            assertThat(r.term()).isEqualTo(cluster.node(1).node().term());
            assertThat(r.processId()).isEqualTo(1);
            assertThat(r.address()).isEqualTo("n1:7400");
        });
        cluster.advance(Duration.ofMillis(500));
        assertThat(cluster.settled()).as(cluster.describe()).isTrue();
    }

    @Test
    void whenTheLeaderCrashesTheHighestLiveProcessTakesOverWithTheNextTerm() {
        BullyCluster cluster = BullyCluster.fast(2, 4).startInOrder();
        cluster.advance(Duration.ofMillis(500));
        BullyCluster.Node first = cluster.leader();
        long term = first.node().term();

        long crashedAt = cluster.wallMicros();
        cluster.crash(first.address);
        Duration failover = cluster.advanceUntil(Duration.ofSeconds(3), cluster::settled);

        BullyCluster.Node next = cluster.leader();
        assertThat(next.address).isEqualTo(cluster.address(4));
        long nextTerm = next.node().term();
        assertThat(nextTerm).as("above the old term: the wall clock in µs when it claimed")
                .isGreaterThan(term).isBetween(crashedAt, cluster.wallMicros());
        assertThat(next.events(LeadershipAcquired.class)).singleElement()
                .satisfies(a -> assertThat(a.term()).isEqualTo(nextTerm));
        assertThat(failover).isLessThan(cluster.config.detectionBound().plus(cluster.config.electionTimeout())
                .plus(Duration.ofMillis(100)));
    }

    @Test
    void aHigherProcessTakesOverFromAHealthyLeaderOnlyAfterTheHoldDown() {
        BullyCluster cluster = BullyCluster.fast(3, 3).startInOrder();
        BullyCluster.Node first = cluster.node(1);
        assertThat(first.election.isLeader()).isTrue();
        long firstTerm = first.node().term();

        cluster.advance(cluster.config.holdDown().minusMillis(500));
        assertThat(first.election.isLeader()).as("still the leader during the hold-down").isTrue();

        cluster.advanceUntil(Duration.ofSeconds(2), () -> cluster.node(3).election.isLeader());
        cluster.advanceUntil(Duration.ofMillis(200), cluster::settled);
        assertThat(first.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.LEASE_TAKEN));
        assertThat(cluster.node(3).node().term()).isGreaterThan(firstTerm);
    }

    @Test
    void aHigherProcessThatKeepsCrashingAndComingBackDoesNotTakeOverFromAHealthyLeader() {
        BullyCluster cluster = BullyCluster.fast(4, 3).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        PeerAddress flapper = cluster.address(2);
        Duration period = cluster.config.holdDown().dividedBy(2);

        for (int i = 0; i < 8; i++) {
            // Each time it comes back it joins under a new, higher process id than the leader's...
            cluster.restart(flapper);
            cluster.advance(period);
            assertThat(cluster.node(flapper).pid()).isGreaterThan(leader.pid());
        }

        // ...but it never stays long enough to take over.
        assertThat(leader.election.isLeader()).isTrue();
        assertThat(leader.events(LeadershipLost.class)).isEmpty();
        cluster.advanceUntil(cluster.config.holdDown().plus(Duration.ofSeconds(1)),
                () -> cluster.node(flapper).election.isLeader());
    }

    @Test
    void electionMessagesGoOnlyToHigherProcessesAndTheHighestLiveOneWins() {
        BullyCluster cluster = BullyCluster.fast(5, 5).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        Map<PeerAddress, Long> pids = cluster.live().stream()
                .collect(Collectors.toMap(n -> n.address, BullyCluster.Node::pid));
        List<Sent<BullyMessage>> sent = cluster.recordSent();

        cluster.crash(leader.address);
        cluster.advanceUntil(Duration.ofSeconds(3), cluster::settled);

        List<Sent<BullyMessage>> elections = sent.stream().filter(s -> s.message() instanceof Election)
                .collect(Collectors.toList());
        assertThat(elections).allSatisfy(e -> assertThat(pids.get(e.to())).isGreaterThan(pids.get(e.from())));
        assertThat(cluster.leader().address).isEqualTo(cluster.address(4));
    }

    @Test
    void aLeaderThatStepsDownIsReplacedAndStaysOutUntilTheHoldDownHasPassed() {
        BullyCluster cluster = BullyCluster.fast(6, 3).startInOrder();
        BullyCluster.Node top = cluster.steady();

        CompletableFuture<Void> done = top.election.stepDown();
        cluster.advanceUntil(Duration.ofSeconds(1), () -> done.isDone() && cluster.node(2).election.isLeader());

        assertThat(top.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.RELEASED));
        cluster.advanceUntil(Duration.ofMillis(500), cluster::settled);
        cluster.advance(cluster.config.holdDown().minusMillis(300));
        assertThat(cluster.node(2).election.isLeader()).as("the step-down holds for the hold-down").isTrue();
        cluster.advanceUntil(Duration.ofSeconds(2), () -> top.election.isLeader());
    }

    @Test
    void aClosingLeaderHasItsMembersElectAtOnceAndAClosingMemberIsRemoved() {
        BullyCluster cluster = BullyCluster.fast(7, 4).startInOrder();
        BullyCluster.Node top = cluster.steady();

        top.election.closeAsync();
        Duration handover = cluster.advanceUntil(Duration.ofSeconds(1), () -> cluster.node(3).election.isLeader());
        cluster.crash(top.address);

        assertThat(handover).as("no waiting for the failure detector").isLessThan(cluster.config.detectionBound());
        assertThat(top.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.RELEASED));
        BullyCluster.Node leader = cluster.node(3);
        cluster.advanceUntil(Duration.ofMillis(500), cluster::settled);

        BullyCluster.Node member = cluster.node(1);
        member.election.closeAsync();
        cluster.advanceUntil(Duration.ofMillis(200), () -> !leader.events(MemberRemoved.class).isEmpty());
        assertThat(leader.events(MemberStateChanged.class)).anySatisfy(c -> {
            assertThat(c.member().id()).isEqualTo(member.address.format());
            assertThat(c.to()).isEqualTo(MemberState.LEAVING);
        });
        assertThat(leader.events(MemberRemoved.class)).singleElement()
                .satisfies(r -> assertThat(r.nodeId()).isEqualTo(member.address.format()));
    }

    @Test
    void eachSideOfAPartitionLeadsWithItsOwnTermAndOnceHealedTheOlderLeaderStopsAtItsNextStoreCheck() {
        BullyCluster cluster = BullyCluster.fast(8, 4).startInOrder();
        BullyCluster.Node top = cluster.steady();
        long before = top.node().term();

        cluster.network.partition(Set.of(cluster.address(1), cluster.address(2)),
                Set.of(cluster.address(3), cluster.address(4)));
        cluster.advanceUntil(Duration.ofSeconds(5), () -> cluster.node(2).election.isLeader());
        long minority = cluster.node(2).node().term();
        assertThat(minority).isGreaterThan(before);
        // Not partition-safe: while the store check has not run yet, both sides lead, ordered by their terms.
        cluster.advanceUntil(Duration.ofSeconds(5), () -> !top.election.isLeader());
        assertThat(top.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.LEASE_TAKEN));

        cluster.network.heal();
        cluster.advanceUntil(Duration.ofSeconds(10), cluster::settled);
        assertThat(cluster.store.termHistory()).isSorted();
        assertThat(cluster.leader().node().term()).isEqualTo(cluster.store.record().orElseThrow().term());
    }

    @Test
    void aLeaderThatCannotConfirmItsTermInTheStoreStopsAndClaimsANewTermOnceTheStoreAnswers() {
        BullyCluster cluster = BullyCluster.fast(9, 3).startInOrder();
        BullyCluster.Node top = cluster.steady();
        long term = top.node().term();

        cluster.store.cutOff(top.address);
        Duration lapse = cluster.advanceUntil(Duration.ofSeconds(2), () -> !top.election.isLeader());
        assertThat(lapse).isLessThanOrEqualTo(cluster.config.leadershipValidity());
        assertThat(top.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
        assertThat(top.election.problem()).hasValueSatisfying(p -> assertThat(p).contains("leader store"));

        cluster.store.reconnect(top.address);
        cluster.advanceUntil(Duration.ofSeconds(3), cluster::settled);
        assertThat(cluster.leader().node().term()).isGreaterThan(term);
    }

    @Test
    void aLeaderThatFindsANewerTermInTheStoreStopsAndJoinsThatLeader() {
        BullyCluster cluster = BullyCluster.fast(10, 3).startInOrder();
        BullyCluster.Node top = cluster.steady();
        long term = top.node().term();
        // Another process (here n1, out of band) took a newer term, e.g. on the other side of a partition.
        BullyCluster.Node n1 = cluster.node(1);
        cluster.store.seed(new LeaderRecord("sim", term + 5, "n1:7400", n1.pid(), "n1:7400"));

        cluster.advanceUntil(cluster.config.storeCheckInterval().plus(Duration.ofMillis(500)),
                () -> !top.election.isLeader());

        assertThat(top.events(LeadershipLost.class)).singleElement()
                .satisfies(l -> assertThat(l.reason()).isEqualTo(LossReason.LEASE_TAKEN));
        cluster.advanceUntil(Duration.ofSeconds(5), cluster::settled);
        assertThat(cluster.leader().node().term()).isGreaterThan(term + 5);
    }

    @Test
    void membersAreToldOfEveryChangeOfLeaderAndTermInOrder() {
        BullyCluster cluster = BullyCluster.fast(11, 3).startInOrder();
        BullyCluster.Node top = cluster.steady();
        BullyCluster.Node member = cluster.node(1);
        member.events.clear();

        cluster.crash(top.address);
        cluster.advanceUntil(Duration.ofSeconds(3), cluster::settled);

        List<ElectionEvent> seen = member.events;
        assertThat(seen).hasSize(4);
        assertThat(seen.get(0)).isInstanceOf(ElectionStarted.class);
        assertThat(seen.get(1)).isInstanceOfSatisfying(LeaderChanged.class, c -> assertThat(c.leader()).isEmpty());
        assertThat(seen.get(2)).isInstanceOfSatisfying(LeaderChanged.class, c -> assertThat(c.leader())
                .hasValueSatisfying(l -> {
                    assertThat(l.nodeId()).isEqualTo("n2:7400");
                    assertThat(l.term()).isGreaterThan(top.node().term())
                            .isEqualTo(cluster.leader().node().term());
                }));
        assertThat(seen.get(3)).isInstanceOfSatisfying(ElectionCompleted.class, c -> assertThat(c.leader()).isFalse());
        List<GroupMember> table = cluster.leader().node().members();
        assertThat(table).extracting(GroupMember::address).containsExactly(cluster.address(1), cluster.address(2));
    }
}
