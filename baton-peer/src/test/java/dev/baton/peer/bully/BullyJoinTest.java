package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent.ElectionError;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.MemberJoined;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.MemberState;
import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.bully.BullyMessage.Join;
import dev.baton.peer.bully.BullyMessage.JoinAccepted;
import dev.baton.peer.bully.BullyMessage.JoinRefusal;
import dev.baton.peer.bully.BullyMessage.JoinRefused;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.sim.NetworkEvent.Sent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's start-up, branch by branch, on the simulated network under virtual time: 3 reads per attempt with random
 * 1-1000 ms pauses, 4 attempts; Join to the leader, which gives the process id; an address still in use (5 s pause);
 * a record naming the joiner itself; a stale record at a cold start; no leader after 4 attempts (process id 1, the
 * record written); the failure detector only after joining.
 */
class BullyJoinTest {

    private static final PeerAddress STRANGER = PeerAddress.of("n9", 7400);

    @Test
    void withAnEmptyStoreTheFirstProcessReadsThreeTimesInEachOfFourAttemptsThenFoundsTheGroupAsPid1() {
        BullyCluster cluster = BullyCluster.with(11, 1, BullyConfig.defaults().build());
        BullyCluster.Node n1 = cluster.start(1);

        cluster.advanceUntil(Duration.ofSeconds(15), () -> n1.election.isLeader());

        // 4 attempts x 3 reads, then the one read before the write (the store may have changed meanwhile).
        assertThat(cluster.store.reads()).isEqualTo(4 * 3 + 1);
        assertThat(cluster.store.writes()).isEqualTo(1);
        assertThat(cluster.store.record())
                .contains(new LeaderRecord("sim", n1.node().term(), "n1:7400", 1, "n1:7400"));
        assertThat(n1.node().term()).as("the wall clock in µs when it founded the group")
                .isBetween(cluster.startMicros, cluster.wallMicros());
        assertThat(n1.pid()).isEqualTo(1);
        // Twelve random pauses of 1 to 1000 ms, each after a read that found nothing.
        assertThat(cluster.clock.elapsed()).isBetween(Duration.ofMillis(12), Duration.ofMillis(12 * 1000 + 100));
    }

    @Test
    void aJoinerFindsTheLeaderInTheStoreGetsTheNextProcessIdAndPingsOnlyOnceItHasJoined() {
        BullyCluster cluster = BullyCluster.fast(12, 2);
        List<Sent<BullyMessage>> sent = cluster.recordSent();
        BullyCluster.Node n1 = cluster.start(1);
        cluster.advanceUntil(Duration.ofSeconds(5), () -> n1.election.isLeader());
        int readsBefore = cluster.store.reads();

        BullyCluster.Node n2 = cluster.start(2);
        cluster.advanceUntil(Duration.ofSeconds(5), () -> n2.node().phase() == BullyNode.Phase.FOLLOWING);

        assertThat(n2.pid()).isEqualTo(2);
        assertThat(cluster.store.reads() - readsBefore).as("one read found the leader").isEqualTo(1);
        List<Sent<BullyMessage>> fromN2 = from(sent, n2.address);
        assertThat(fromN2.get(0).message()).isInstanceOf(Join.class);
        assertThat(fromN2.get(0).to()).isEqualTo(n1.address);

        cluster.advance(Duration.ofMillis(500));
        int accepted = indexOf(sent, n1.address, n2.address, JoinAccepted.class);
        int firstPing = indexOf(sent, n2.address, null, Ping.class);
        assertThat(firstPing).as("the joiner's first ping comes after its admission").isGreaterThan(accepted);
        assertThat(n1.events(MemberJoined.class)).singleElement().satisfies(joined -> {
            assertThat(joined.member().id()).isEqualTo("n2:7400");
            assertThat(joined.member().metadata()).containsEntry(GroupTable.PID_KEY, "2");
        });
        assertThat(n1.events(MemberStateChanged.class)).anySatisfy(change -> {
            assertThat(change.from()).isEqualTo(MemberState.JOINING);
            assertThat(change.to()).isEqualTo(MemberState.ACTIVE);
        });
        assertThat(cluster.settled()).as(cluster.describe()).isTrue();
    }

    @Test
    void aRecordNamingTheJoinersOwnAddressCountsAsNoLeader() {
        BullyCluster cluster = BullyCluster.fast(13, 1);
        List<Sent<BullyMessage>> sent = cluster.recordSent();
        cluster.store.seed(new LeaderRecord("sim", 7, "n1:7400", 3, "n1:7400"));
        BullyCluster.Node n1 = cluster.start(1);

        cluster.advanceUntil(Duration.ofSeconds(5), () -> n1.election.isLeader());

        assertThat(sent).noneMatch(s -> s.message() instanceof Join);
        assertThat(cluster.store.reads()).isEqualTo(4 * 3 + 1);
        assertThat(cluster.store.record())
                .contains(new LeaderRecord("sim", n1.node().term(), "n1:7400", 1, "n1:7400"));
        assertThat(n1.node().term()).isGreaterThan(7);
    }

    @Test
    void aStaleRecordAtAColdStartIsDetectedByTheAnswerAndTheJoinerJoinsOnceTheGroupIsFounded() {
        BullyCluster cluster = BullyCluster.fast(14, 2);
        List<Sent<BullyMessage>> sent = cluster.recordSent();
        // Both processes start; the record names n2 from before, and n2 is not the leader (yet).
        cluster.store.seed(new LeaderRecord("sim", 3, "n2:7400", 4, "n2:7400"));
        BullyCluster.Node n1 = cluster.start(1);
        BullyCluster.Node n2 = cluster.start(2);

        cluster.advanceUntil(Duration.ofSeconds(10), cluster::settled);

        assertThat(sent).anyMatch(s -> s.from().equals(n2.address) && s.to().equals(n1.address)
                && s.message() instanceof JoinRefused refused && refused.reason() == JoinRefusal.NOT_LEADER);
        assertThat(n2.election.isLeader()).isTrue();
        assertThat(n2.node().term()).isGreaterThan(3);
        assertThat(n1.node().term()).isEqualTo(n2.node().term());
        assertThat(n1.pid()).isEqualTo(2);
    }

    @Test
    void aLeaderThatIsNotTheLeaderFourTimesOverIsReportedAndTheJoinStartsOver() {
        BullyCluster cluster = BullyCluster.fast(15, 1);
        FakePeer stranger = new FakePeer(cluster, STRANGER,
                (from, m) -> m instanceof Join ? new JoinRefused(0, JoinRefusal.NOT_LEADER) : null);
        cluster.store.seed(new LeaderRecord("sim", 2, "n9:7400", 1, "n9:7400"));
        BullyCluster.Node n1 = cluster.start(1);

        cluster.advanceUntil(Duration.ofSeconds(5), () -> !n1.events(ElectionError.class).isEmpty());

        assertThat(stranger.received(Join.class)).hasSize(4);
        assertThat(n1.events(ElectionError.class)).singleElement().satisfies(error -> assertThat(error.message())
                .isEqualTo("could not join group sim through n9:7400 after 4 attempts: the node in the leader"
                        + " store is not the leader (stale record); starting over"));
        cluster.advance(Duration.ofMillis(500));
        assertThat(stranger.received(Join.class)).as("the join loop started over").hasSizeGreaterThan(4);
        assertThat(cluster.store.writes()).as("it never founds a group over a live node").isZero();
        assertThat(n1.election.isLeader()).isFalse();
    }

    @Test
    void aLeaderThatCannotBeContactedInFourAttemptsMakesTheJoinerFoundTheGroup() {
        BullyCluster cluster = BullyCluster.fast(16, 1);
        FakePeer silent = new FakePeer(cluster, STRANGER, (from, m) -> null);
        cluster.store.seed(new LeaderRecord("sim", 5, "n9:7400", 2, "n9:7400"));
        BullyCluster.Node n1 = cluster.start(1);

        cluster.advanceUntil(Duration.ofSeconds(10), () -> n1.election.isLeader());

        assertThat(silent.received(Join.class)).hasSize(4);
        assertThat(cluster.store.record())
                .contains(new LeaderRecord("sim", n1.node().term(), "n1:7400", 1, "n1:7400"));
        assertThat(n1.node().term()).isGreaterThan(5);
    }

    @Test
    void anAddressStillInUseMakesTheJoinerPauseFiveSecondsAndTryAgain() {
        BullyCluster cluster = BullyCluster.with(17, 2, BullyConfig.defaults().build());
        List<Sent<BullyMessage>> sent = cluster.recordSent();
        cluster.startInOrder();
        BullyCluster.Node n1 = cluster.node(1);

        // Killed and started again at once: the leader still has the old process on that address.
        BullyCluster.Node again = cluster.restart(cluster.address(2));
        cluster.advanceUntil(Duration.ofSeconds(30), () -> again.node().phase() == BullyNode.Phase.FOLLOWING);

        List<Sent<BullyMessage>> refusals = sent.stream().filter(s -> s.from().equals(n1.address)
                && s.message() instanceof JoinRefused r && r.reason() == JoinRefusal.ADDRESS_IN_USE)
                .collect(Collectors.toList());
        assertThat(refusals).isNotEmpty();
        long refusedAt = refusals.get(0).atNanos();
        List<Sent<BullyMessage>> laterJoins = sent.stream().filter(s -> s.from().equals(again.address)
                && s.message() instanceof Join && s.atNanos() > refusedAt).collect(Collectors.toList());
        assertThat(Duration.ofNanos(laterJoins.get(0).atNanos() - refusedAt)).isGreaterThanOrEqualTo(
                Duration.ofSeconds(5));
        assertThat(again.pid()).as("a new process gets a new process id").isEqualTo(3);
    }

    @Test
    void anAddressInUseFourTimesOverIsReportedAndTheJoinStartsOver() {
        BullyCluster cluster = BullyCluster.fast(18, 1);
        FakePeer leader = new FakePeer(cluster, STRANGER,
                (from, m) -> m instanceof Join ? new JoinRefused(3, JoinRefusal.ADDRESS_IN_USE) : null);
        cluster.store.seed(new LeaderRecord("sim", 3, "n9:7400", 1, "n9:7400"));
        BullyCluster.Node n1 = cluster.start(1);

        cluster.advanceUntil(Duration.ofSeconds(5), () -> !n1.events(ElectionError.class).isEmpty());

        List<FakePeer.Received> joins = leader.inbox().stream().filter(r -> r.message() instanceof Join)
                .collect(Collectors.toList());
        assertThat(joins).hasSize(4);
        for (int i = 1; i < joins.size(); i++) {
            assertThat(Duration.ofNanos(joins.get(i).atNanos() - joins.get(i - 1).atNanos()))
                    .isGreaterThanOrEqualTo(cluster.config.addressInUsePause());
        }
        assertThat(n1.events(ElectionError.class).get(0).message()).contains("after 4 attempts")
                .contains("still has a member on this node's address");
        assertThat(cluster.store.writes()).isZero();
    }

    @Test
    void twoProcessesThatFoundTheGroupAtOnceAreOrderedByTheStoreAndTheLoserJoins() {
        BullyConfig oneRead = BullyConfig.fast().joinAttempts(1).readsPerAttempt(1)
                .joinPauseMax(Duration.ofMillis(1)).build();
        BullyCluster cluster = BullyCluster.with(19, 2, oneRead);
        cluster.store.latency(Duration.ofMillis(100), Duration.ofMillis(100));
        BullyCluster.Node n1 = cluster.start(1);
        BullyCluster.Node n2 = cluster.start(2);

        cluster.advanceUntil(Duration.ofSeconds(5), cluster::settled);

        // Both read the empty store at the same simulated moment, so both claim the same term (the clock's).
        assertThat(cluster.store.writes()).as("both tried to write the first term").isEqualTo(2);
        BullyCluster.Node winner = n1.election.isLeader() ? n1 : n2;
        List<LeadershipAcquired> acquired = cluster.nodes.values().stream()
                .flatMap(n -> n.events(LeadershipAcquired.class).stream()).collect(Collectors.toList());
        assertThat(acquired).singleElement().satisfies(a -> assertThat(a.term()).isEqualTo(winner.node().term()));
        BullyCluster.Node loser = winner == n1 ? n2 : n1;
        assertThat(loser.pid()).isEqualTo(2);
    }

    @Test
    void fiveProcessesStartingAtOnceOnAnEmptyStoreFormOneGroup() {
        BullyCluster cluster = BullyCluster.fast(20, 5).startAll();

        cluster.advanceUntil(Duration.ofSeconds(10), cluster::settled);

        assertThat(cluster.nodes.values().stream().map(BullyCluster.Node::pid).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        assertThat(cluster.nodes.values().stream().flatMap(n -> n.events(LeadershipAcquired.class).stream()))
                .singleElement().satisfies(a -> assertThat(a.term()).isEqualTo(cluster.leader().node().term()));
    }

    private static List<Sent<BullyMessage>> from(List<Sent<BullyMessage>> sent, PeerAddress sender) {
        return sent.stream().filter(s -> s.from().equals(sender)).collect(Collectors.toList());
    }

    private static int indexOf(List<Sent<BullyMessage>> sent, PeerAddress from, PeerAddress to,
            Class<? extends BullyMessage> type) {
        for (int i = 0; i < sent.size(); i++) {
            Sent<BullyMessage> s = sent.get(i);
            if (s.from().equals(from) && (to == null || s.to().equals(to)) && type.isInstance(s.message())) {
                return i;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " from " + from + " in " + sent);
    }
}
