package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.NodeState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NodeScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's own vote counts only once its disk holds it, like any other node's vote (which arrives only after its
 * write completed). A one-node cluster is the sharpest case: its own vote is the whole majority, so a node that counted
 * a vote its disk refused would lead a version it does not remember, and after a restart could lead it again. A
 * refused write stops the node; started again on a disk that works, it leads.
 */
class QuorumOwnVoteTest {

    private static final Duration STEP = Duration.ofMillis(1);

    private final SimCluster cluster = new SimCluster(41, 1, 1, QuorumConfig.fast(), LinkConditions.instant(), true);
    private final HeldDurableState disk = new HeldDurableState(AcceptorState.INITIAL);
    private final NodeScheduler process = new NodeScheduler(cluster.scheduler);
    private final QuorumElection election = new QuorumElection(SimCluster.GROUP, new MemberCard("n1", null,
            Capabilities.DEFAULT, Map.of()), cluster.config, cluster.network.transport(cluster.addresses.get(0)), disk,
            cluster.clock, process, new Random(11), Runnable::run, null);
    private final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
    /** What the disk held when the application was told it leads, one entry per LeadershipAcquired. */
    private final List<Optional<AcceptorState>> diskWhenLeading = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAndEndTheWriterThread() {
        disk.failing(false);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        election.node().close(false, closed);
        if (!process.crashed()) {
            advanceUntil(closed::isDone);
        }
    }

    @Test
    void aNodeWhoseDiskRefusesItsVoteNeverLeadsAndLeadsOnceRestartedOnAWorkingDisk() {
        election.addListener(this::record);
        disk.failing(true);
        election.node().start();
        advanceUntil(() -> events.stream().anyMatch(ElectionEvent.ElectionError.class::isInstance));
        cluster.advance(Duration.ofSeconds(3));
        assertThat(events).as("a vote the disk refused is not counted").noneMatch(LeadershipAcquired.class::isInstance);
        assertThat(election.state()).as("it stops rather than vote on what its disk may not hold")
                .isEqualTo(NodeState.STOPPED);

        disk.failing(false);
        process.crash();
        NodeScheduler again = new NodeScheduler(cluster.scheduler);
        QuorumElection restarted = new QuorumElection(SimCluster.GROUP, new MemberCard("n1", null,
                Capabilities.DEFAULT, Map.of()), cluster.config,
                cluster.network.restart(cluster.addresses.get(0)), disk, cluster.clock, again, new Random(12),
                Runnable::run, null);
        restarted.addListener(this::record);
        restarted.node().start();
        advanceUntil(() -> !diskWhenLeading.isEmpty());
        long term = events.stream().filter(LeadershipAcquired.class::isInstance).map(LeadershipAcquired.class::cast)
                .findFirst().orElseThrow().leadership().term();
        assertThat(diskWhenLeading.get(0)).as("the disk holds the vote the leadership rests on")
                .hasValueSatisfying(state -> assertThat(state.highestVersion()).isGreaterThanOrEqualTo(term));
        CompletableFuture<Void> closed = new CompletableFuture<>();
        again.execute(() -> restarted.node().close(false, closed));
        advanceUntil(closed::isDone);
    }

    private void record(ElectionEvent event) {
        events.add(event);
        if (event instanceof LeadershipAcquired) {
            diskWhenLeading.add(disk.load());
        }
    }

    /** Advances the simulation while the writer thread completes: its completion is handed to the scheduler. */
    private void advanceUntil(BooleanSupplier done) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(2)).until(() -> {
            cluster.advance(STEP);
            return done.getAsBoolean();
        });
    }
}
