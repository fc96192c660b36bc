package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.ElectionEvent.ElectionError;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.NodeState;
import dev.baton.peer.quorum.QuorumMessage.FormalProposal;
import dev.baton.peer.quorum.QuorumMessage.FormalVote;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * What the election does when its vote log's disk misbehaves, on {@link SimulatedDisk}s (the vote log's record
 * layout and reading rule, saved through the group-commit driver of a node with a data directory).
 *
 * <ul>
 *   <li>A torn last record (detected: it fails its checksum) sends the node through recovery before it votes again,
 *       and the cluster stays safe.</li>
 *   <li>A failed fsync (EIO) sends nothing that depended on the write, and stops the node until it is restarted.</li>
 *   <li>A lost last write that leaves the older record intact cannot be detected: the node comes back having
 *       forgotten a vote it sent. That is the assumption the election's safety rests on (fsync is honest), and the
 *       last two tests show it: an acceptor then votes twice differently in one version, and a cluster elects two
 *       leaders of one version, which the {@link SafetyChecker} reports.</li>
 * </ul>
 */
class QuorumDiskFaultsTest {

    private static final Duration STEP = Duration.ofMillis(1);
    private static final Duration TTL_AND_A_BIT = Duration.ofMillis(1_100);

    @Test
    void aTornLastWriteIsDetectedAndTheNodeRecoversBeforeItVotesAgain() {
        SimCluster cluster = onDisks(3);
        SafetyChecker checker = new SafetyChecker(cluster);
        cluster.startAll();
        advanceUntil(cluster, checker, Duration.ofSeconds(10), () -> cluster.leaders().size() == 1
                && cluster.live().stream().allMatch(n -> n.node().currentLeader() != null));
        SimCluster.Node leader = cluster.leader();
        PeerAddress torn = follower(cluster, leader);

        assertThat(cluster.crash(torn, SimulatedDisk.CrashFault.TEAR_LAST_WRITE)).as("a record was torn").isTrue();
        assertThat(cluster.node(torn).state.load()).hasValueSatisfying(state -> assertThat(state.recovered())
                .as("the loss is detected").isFalse());
        SimCluster.Node restarted = cluster.restart(torn, true);
        cluster.advance(STEP);
        assertThat(restarted.node().phase()).isEqualTo(QuorumNode.Phase.RECOVERING);

        advanceUntil(cluster, checker, Duration.ofSeconds(5), () -> leader.address.equals(
                restarted.node().currentLeader()));
        assertThat(restarted.node().acceptor().recovered()).isTrue();
        assertThat(restarted.node().acceptor().floor()).as("it votes only above every version decided before")
                .isGreaterThan(leader.node().leaderVersion());
        assertThat(restarted.disk().detectedLosses()).isEqualTo(1);
    }

    @Test
    void aFailedFsyncSendsNothingThatDependedOnItAndStopsTheNodeUntilItIsRestarted() {
        SimCluster cluster = onDisks(3);
        SafetyChecker checker = new SafetyChecker(cluster);
        cluster.startAll();
        advanceUntil(cluster, checker, Duration.ofSeconds(10), () -> cluster.leaders().size() == 1);
        SimCluster.Node leader = cluster.leader();
        SimCluster.Node failing = cluster.node(follower(cluster, leader));
        List<NetworkEvent.Sent<QuorumMessage>> sent = cluster.recordSent();

        // The leader goes: the two others need each other's votes, and one's first vote write fails.
        failing.disk().failNextForce();
        cluster.crash(leader.address);
        advanceUntil(cluster, checker, Duration.ofSeconds(5), failing::stopped);
        cluster.advance(Duration.ofSeconds(3), STEP, checker::check);

        assertThat(failing.disk().failedForces()).isEqualTo(1);
        assertThat(sent).as("no vote left the node after its write failed")
                .filteredOn(s -> s.from().equals(failing.address))
                .noneMatch(s -> s.message() instanceof PreVote promise && promise.accepted()
                        || s.message() instanceof FormalVote acceptance && acceptance.accepted());
        assertThat(failing.election.state()).isEqualTo(NodeState.STOPPED);
        assertThat(failing.events(ElectionError.class)).singleElement().satisfies(e -> assertThat(e.message())
                .isEqualTo("cannot save the election state (cannot store the election state on a simulated disk:"
                        + " Input/output error (a simulated fsync failure)); what depended on it was not sent, and"
                        + " this node takes no further part in elections until it is restarted"));
        assertThat(failing.election.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("stopped: cannot"
                + " save the election state (cannot store"));
        assertThat(cluster.leaders()).as("one node of three cannot elect").isEmpty();

        // What the disk kept of the failed record is unknown: all, none or a torn part (then it recovers first).
        cluster.restart(failing.address, true);
        cluster.restart(leader.address, true);
        advanceUntil(cluster, checker, Duration.ofSeconds(5), () -> cluster.leaders().size() == 1
                && cluster.live().stream().allMatch(n -> n.node().currentLeader() != null));
    }

    /** Demonstrates the assumption that fsync is honest: a vote whose write is lost is forgotten, undetected. */
    @Test
    void aLostLastWriteLetsAnAcceptorVoteTwiceDifferentlyInOneVersion() {
        SimCluster cluster = new SimCluster(31, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), true);
        PeerAddress n1 = cluster.addresses.get(0);
        FakePeer p2 = new FakePeer(cluster, cluster.addresses.get(1));
        FakePeer p3 = new FakePeer(cluster, cluster.addresses.get(2));
        SimulatedDisk disk = new SimulatedDisk(5);
        disk.store(AcceptorState.INITIAL);
        cluster.start(n1, disk);
        cluster.advance(TTL_AND_A_BIT);

        Ballot first = new Ballot(5, 0, p2.address);
        p2.send(n1, new PreProposal(first, false));
        cluster.advance(Duration.ofMillis(5));
        p2.send(n1, new FormalProposal(first, p2.address, false));
        cluster.advance(Duration.ofMillis(5));
        assertThat(p2.last(FormalVote.class).accepted()).as("with p2's own, a majority: p2 leads version 5").isTrue();

        assertThat(cluster.crash(n1, SimulatedDisk.CrashFault.LOSE_LAST_WRITE)).isTrue();
        assertThat(disk.load()).as("the older record is intact: nothing tells the loss")
                .hasValueSatisfying(state -> assertThat(state.recovered()).isTrue());
        cluster.restart(n1, true);
        cluster.advance(TTL_AND_A_BIT);

        Ballot second = new Ballot(5, 1, p3.address);
        p3.send(n1, new PreProposal(second, false));
        cluster.advance(Duration.ofMillis(5));
        PreVote promise = p3.last(PreVote.class);
        assertThat(promise.accepted()).isTrue();
        assertThat(promise.acceptedCandidate()).as("it forgot the vote it sent").isNull();
        p3.send(n1, new FormalProposal(second, p3.address, false));
        cluster.advance(Duration.ofMillis(5));
        assertThat(p3.last(FormalVote.class).accepted()).as("with p3's own, a majority: p3 leads version 5 too")
                .isTrue();
    }

    /**
     * Demonstrates the assumption on a whole cluster: the node whose acceptance elected a leader loses that write in
     * a crash; with the leader gone, it and the third node elect another leader of the same version. The checker
     * reports the violation.
     */
    @Test
    void aLostLastWriteCanElectTwoLeadersOfOneVersionAndTheCheckerReportsIt() {
        SimCluster cluster = new SimCluster(17, 3, 3, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(5), Duration.ofMillis(5)), false).onDisks();
        SafetyChecker checker = new SafetyChecker(cluster);
        for (PeerAddress address : cluster.addresses) {
            SimulatedDisk disk = new SimulatedDisk(address.hashCode());
            disk.store(AcceptorState.INITIAL);
            cluster.start(address, disk);
        }
        advanceUntil(cluster, checker, Duration.ofSeconds(10), () -> cluster.leaders().size() == 1);
        SimCluster.Node first = cluster.leader();
        long version = first.node().leaderVersion();

        // The first leader is cut off; one of the other two is elected leader of the next version with the other's
        // acceptance, which is that node's last write.
        List<PeerAddress> others = cluster.addresses.stream().filter(a -> !a.equals(first.address)).toList();
        cluster.network.partition(Set.of(first.address), Set.copyOf(others));
        advanceUntil(cluster, checker, Duration.ofSeconds(10), () -> others.stream().anyMatch(a -> cluster.node(a)
                .events(LeadershipAcquired.class).stream().anyMatch(e -> e.term() == version + 1)));
        SimCluster.Node second = cluster.leaders().get(0);
        PeerAddress voter = others.stream().filter(a -> !a.equals(second.address)).findFirst().orElseThrow();

        assertThat(cluster.crash(voter, SimulatedDisk.CrashFault.LOSE_LAST_WRITE)).isTrue();
        cluster.crash(second.address);
        cluster.network.heal();
        cluster.restart(voter, true);

        assertThatThrownBy(() -> advanceUntil(cluster, checker, Duration.ofSeconds(10), () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("version " + (version + 1) + " has two leaders: " + second.address);
    }

    private static SimCluster onDisks(int size) {
        return new SimCluster(23, size, size, QuorumConfig.fast(),
                LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)), true).onDisks();
    }

    private static PeerAddress follower(SimCluster cluster, SimCluster.Node leader) {
        return cluster.addresses.stream().filter(a -> !a.equals(leader.address)).findFirst().orElseThrow();
    }

    /** Advances 1 ms at a time, checking the invariants, until {@code done}; fails after {@code limit}. */
    private static void advanceUntil(SimCluster cluster, SafetyChecker checker, Duration limit, BooleanSupplier done) {
        long end = cluster.clock.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (cluster.clock.nanoTime() - end >= 0) {
                throw new AssertionError("not within " + limit.toMillis() + " ms\n" + cluster.describe());
            }
            cluster.advance(STEP);
            checker.check();
        }
    }
}
