package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.MemberState;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A leader that dies is a member like any other: its successor marks it unreachable, then leaving, then removes it,
 * on seed 003's timings counted from the successor's election, whenever it dies. {@code baton demo} kills the leader
 * as soon as every follower has reported it as leader, which is before a follower that learned of the election has
 * the leader's table; a successor elected from that follower must still know the dead leader.
 */
class QuorumFailoverMembersTest {

    /** Milliseconds after every follower follows the leader: the first round trips, then across two heartbeats. */
    static Stream<Long> crashOffsets() {
        return Stream.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 8L, 10L, 15L, 25L, 50L, 75L, 99L, 100L, 101L, 150L, 199L);
    }

    @ParameterizedTest(name = "leader killed {0} ms after every node follows it")
    @MethodSource("crashOffsets")
    void aLeaderKilledRightAfterItsElectionIsMarkedUnreachableThenRemovedByItsSuccessor(long offsetMillis) {
        for (long seed = 1; seed <= 8; seed++) {
            killLeaderAndCheckItsRemoval(seed, offsetMillis);
        }
    }

    private static void killLeaderAndCheckItsRemoval(long seed, long offsetMillis) {
        // As baton demo does: three nodes without saved state, started together on links of 1-3 ms.
        SimCluster cluster = new SimCluster(seed, 3, 3, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), false);
        cluster.startAll();
        cluster.advanceUntil(Duration.ofSeconds(20), () -> everyNodeFollowsOneLeader(cluster));
        cluster.advance(Duration.ofMillis(offsetMillis));
        SimCluster.Node dead = cluster.leader();
        Instant killedAt = now(cluster);
        cluster.crash(dead.address);
        cluster.advance(Duration.ofSeconds(5));

        String context = "seed " + seed + ", leader " + dead.address + " killed " + offsetMillis
                + " ms after every node followed it\n" + cluster.describe();
        SimCluster.Node successor = firstLeaderAfter(cluster, killedAt).orElseThrow(
                () -> new AssertionError("no successor: " + context));
        Instant electedAt = successor.events(LeadershipAcquired.class).stream().map(LeadershipAcquired::at)
                .filter(at -> at.isAfter(killedAt)).findFirst().orElseThrow();
        String who = dead.address.format();
        List<MemberState> changes = successor.events(MemberStateChanged.class).stream()
                .filter(e -> e.member().id().equals(who)).map(MemberStateChanged::to).toList();
        assertThat(changes).as("states the successor gave the dead leader; %s", context)
                .containsExactly(MemberState.UNREACHABLE, MemberState.LEAVING);
        Instant unreachableAt = successor.events(MemberStateChanged.class).stream()
                .filter(e -> e.member().id().equals(who) && e.to() == MemberState.UNREACHABLE)
                .map(ElectionEvent::at).findFirst().orElseThrow();
        Instant removedAt = successor.events(MemberRemoved.class).stream().filter(e -> e.nodeId().equals(who))
                .map(ElectionEvent::at).findFirst().orElseThrow(() -> new AssertionError("not removed: " + context));
        QuorumConfig config = cluster.config;
        Duration tick = config.heartbeatInterval();
        // Silent for heartbeatTimeout from the successor's election, then the indirect check failed.
        assertThat(Duration.between(electedAt, unreachableAt)).as(context)
                .isBetween(config.heartbeatTimeout().minus(tick),
                        config.heartbeatTimeout().plus(config.probeTimeout()).plus(tick.multipliedBy(2)));
        // Silent for ttlTimeout: leaving, and removed on the next round.
        assertThat(Duration.between(electedAt, removedAt)).as(context)
                .isBetween(config.ttlTimeout().minus(tick), config.ttlTimeout().plus(tick.multipliedBy(2)));
        for (SimCluster.Node node : cluster.live()) {
            assertThat(node.node().members()).as("view of %s; %s", node.address, context)
                    .extracting(MemberEntry::address).doesNotContain(dead.address)
                    .containsExactlyInAnyOrderElementsOf(cluster.live().stream().map(n -> n.address).toList());
        }
    }

    private static boolean everyNodeFollowsOneLeader(SimCluster cluster) {
        List<SimCluster.Node> leaders = cluster.leaders();
        if (leaders.size() != 1) {
            return false;
        }
        PeerAddress leader = leaders.get(0).address;
        return cluster.live().stream().allMatch(n -> leader.equals(n.node().currentLeader()));
    }

    private static Optional<SimCluster.Node> firstLeaderAfter(SimCluster cluster, Instant after) {
        SimCluster.Node first = null;
        Instant firstAt = null;
        for (SimCluster.Node node : cluster.live()) {
            for (LeadershipAcquired acquired : node.events(LeadershipAcquired.class)) {
                if (acquired.at().isAfter(after) && (firstAt == null || acquired.at().isBefore(firstAt))) {
                    first = node;
                    firstAt = acquired.at();
                }
            }
        }
        return Optional.ofNullable(first);
    }

    private static Instant now(SimCluster cluster) {
        return cluster.clock.instant();
    }
}
