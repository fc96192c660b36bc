package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.MemberRemoved;
import dev.baton.core.ElectionEvent.MemberStateChanged;
import dev.baton.core.MemberState;
import dev.baton.peer.bully.BullyMessage.Ack;
import dev.baton.peer.bully.BullyMessage.Ping;
import dev.baton.peer.bully.BullyMessage.ProbeRequest;
import dev.baton.peer.sim.NetworkEvent.Sent;
import dev.baton.peer.sim.TrafficRecorder;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's failure detector: every member pings every other member every interval; a member is suspected after
 * suspectAfter missed pings and removed only once one indirect probe through another member has failed too.
 */
class BullyDetectorTest {

    @Test
    void everyMemberPingsEveryOtherMemberEveryIntervalAndAnswersEveryPing() {
        int size = 5;
        BullyCluster cluster = BullyCluster.fast(31, size).startInOrder();
        cluster.advance(Duration.ofSeconds(1));
        TrafficRecorder<BullyMessage> traffic = new TrafficRecorder<>();
        cluster.network.addListener(traffic);
        int intervals = 20;

        cluster.advance(cluster.config.pingInterval().multipliedBy(intervals));

        for (PeerAddress address : cluster.addresses) {
            double perInterval = (double) traffic.sentBy(address) / intervals;
            // N - 1 pings and N - 1 answers: 2 (N - 1) messages per member per interval, 2 N (N - 1) in all.
            assertThat(perInterval).as("messages sent by %s per interval", address)
                    .isBetween(2.0 * (size - 1) - 0.1, 2.0 * (size - 1) + 0.1);
        }
        assertThat(traffic.sentPerType().keySet()).containsExactlyInAnyOrder(Ping.class, Ack.class);
    }

    @Test
    void aCrashedMemberIsSuspectedThenProbedThroughAnotherMemberAndOnlyThenRemoved() {
        BullyCluster cluster = BullyCluster.fast(32, 4).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        List<Sent<BullyMessage>> sent = cluster.recordSent();
        PeerAddress victim = cluster.address(2);
        long crashedAt = cluster.clock.nanoTime();

        cluster.crash(victim);
        cluster.advanceUntil(cluster.config.detectionBound().plus(Duration.ofMillis(50)),
                () -> !leader.events(MemberRemoved.class).isEmpty());

        List<ElectionEvent> aboutVictim = leader.events.stream().filter(e ->
                (e instanceof MemberStateChanged c && c.member().id().equals(victim.format())
                        && c.from() != MemberState.JOINING)
                        || (e instanceof MemberRemoved r && r.nodeId().equals(victim.format())))
                .collect(Collectors.toList());
        assertThat(aboutVictim).hasSize(2);
        assertThat(aboutVictim.get(0)).isInstanceOfSatisfying(MemberStateChanged.class, c -> {
            assertThat(c.from()).isEqualTo(MemberState.ACTIVE);
            assertThat(c.to()).isEqualTo(MemberState.UNREACHABLE);
        });
        assertThat(aboutVictim.get(1)).isInstanceOf(MemberRemoved.class);
        List<Sent<BullyMessage>> probes = sent.stream().filter(s -> s.from().equals(leader.address)
                && s.message() instanceof ProbeRequest r && r.target().equals(victim)).collect(Collectors.toList());
        assertThat(probes).as("one indirect probe, through another member").singleElement()
                .satisfies(p -> assertThat(p.to()).isNotIn(victim, leader.address));
        assertThat(Duration.ofNanos(probes.get(0).atNanos() - crashedAt)).as("suspected after the missed pings")
                .isGreaterThanOrEqualTo(cluster.config.pingInterval().multipliedBy(cluster.config.suspectAfter()));
        cluster.advanceUntil(Duration.ofMillis(200), cluster::settled);
    }

    @Test
    void aSingleBrokenLinkDoesNotEvictAMemberNorStartAnElection() {
        BullyCluster cluster = BullyCluster.fast(33, 4).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        PeerAddress member = cluster.address(2);
        long term = leader.node().term();
        assertThat(leader.address).isEqualTo(cluster.address(4));

        cluster.network.cut(leader.address, member);
        cluster.network.cut(member, leader.address);
        cluster.advance(Duration.ofSeconds(10));

        assertThat(leader.events(MemberRemoved.class)).isEmpty();
        assertThat(leader.node().members()).anySatisfy(m -> assertThat(m.address()).isEqualTo(member));
        assertThat(leader.events(LeadershipLost.class)).isEmpty();
        assertThat(leader.node().term()).isEqualTo(term);
        assertThat(cluster.node(member).election.leader()).hasValueSatisfying(l ->
                assertThat(l.nodeId()).isEqualTo(leader.address.format()));
        // The leader suspects it now and then; every probe through another member finds it alive.
        assertThat(leader.events(MemberStateChanged.class)).allSatisfy(c ->
                assertThat(c.to()).isIn(MemberState.UNREACHABLE, MemberState.ACTIVE));
    }

    @Test
    void inAGroupOfTwoTheDirectPingsAloneConfirmAFailure() {
        BullyCluster cluster = BullyCluster.fast(34, 2).startInOrder();
        cluster.advance(Duration.ofSeconds(1));
        List<Sent<BullyMessage>> sent = cluster.recordSent();

        cluster.crash(cluster.address(2));
        cluster.advanceUntil(cluster.config.pingInterval().multipliedBy(cluster.config.suspectAfter() + 2),
                () -> !cluster.node(1).events(MemberRemoved.class).isEmpty());

        assertThat(sent).noneMatch(s -> s.message() instanceof ProbeRequest);
    }

    @Test
    void aMemberThatWasSuspectedIsKeptWhenItAnswersAgain() {
        BullyCluster cluster = BullyCluster.fast(35, 3).startInOrder();
        BullyCluster.Node leader = cluster.steady();
        PeerAddress member = cluster.address(1);
        // Everyone loses it for a moment: suspected, but back before the probe's verdict.
        cluster.network.partition(Set.of(member), Set.of(cluster.address(2), cluster.address(3)));
        cluster.advanceUntil(Duration.ofSeconds(1), () -> leader.node().members().stream()
                .anyMatch(m -> m.address().equals(member) && m.state() == MemberState.UNREACHABLE));
        cluster.network.heal();
        cluster.advance(Duration.ofSeconds(1));

        Map<PeerAddress, MemberState> states = leader.node().members().stream()
                .collect(Collectors.toMap(BullyMessage.GroupMember::address, BullyMessage.GroupMember::state));
        assertThat(states).containsEntry(member, MemberState.ACTIVE);
        assertThat(leader.events(MemberRemoved.class)).isEmpty();
    }
}
