package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeState;
import dev.baton.peer.MemberCard;
import dev.baton.peer.quorum.QuorumMessage.PreProposal;
import dev.baton.peer.quorum.QuorumMessage.PreVote;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NodeScheduler;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Votes are durable before they are sent, with the writes off the protocol's thread: one real node whose state is a
 * {@link HeldDurableState} (so its writes go through the group-commit writer thread), its peer played by hand on the
 * simulated network. A promise is not sent while its write is held back, goes out once the write completes, and is
 * never sent if the process dies before the write completes; saves that pile up behind a slow write become one write.
 */
class QuorumDurableVotesTest {

    private static final Duration TTL_AND_A_BIT = Duration.ofMillis(1_100);
    private static final Duration STEP = Duration.ofMillis(1);

    private final SimCluster cluster = new SimCluster(31, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), true);
    private final PeerAddress n1 = cluster.addresses.get(0);
    private final PeerAddress n2 = cluster.addresses.get(1);
    private final HeldDurableState disk = new HeldDurableState(AcceptorState.INITIAL);
    private final NodeScheduler process = new NodeScheduler(cluster.scheduler);
    private final QuorumElection election = new QuorumElection(SimCluster.GROUP, new MemberCard("n1", null,
            Capabilities.DEFAULT, Map.of()), cluster.config, cluster.network.transport(n1), disk, cluster.clock,
            process, new Random(7), Runnable::run, null);
    private final FakePeer p2 = new FakePeer(cluster, n2);

    @AfterEach
    void closeAndEndTheWriterThread() {
        disk.release();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        election.node().close(false, closed);
        if (!process.crashed()) {
            advanceUntil(closed::isDone);
        }
    }

    @Test
    void aPromiseIsSentOnlyOnceItsWriteCompletes() {
        startAndWaitOutTheTtl();
        disk.hold();
        Ballot ballot = new Ballot(5, 0, n2);
        p2.send(n1, new PreProposal(ballot, false));
        cluster.advance(STEP);
        await().atMost(Duration.ofSeconds(10)).until(disk::writing);
        cluster.advance(Duration.ofMillis(50));

        assertThat(p2.received(PreVote.class)).as("no promise while its write is held back").isEmpty();
        assertThat(disk.load()).hasValueSatisfying(s -> assertThat(s.promised()).isNull());

        disk.release();
        advanceUntil(() -> !p2.received(PreVote.class).isEmpty());
        assertThat(p2.last(PreVote.class).accepted()).isTrue();
        assertThat(disk.load()).hasValueSatisfying(s -> assertThat(s.promised()).isEqualTo(ballot));
    }

    @Test
    void aCrashBeforeTheWriteCompletesLeavesNoPromiseSent() {
        startAndWaitOutTheTtl();
        disk.hold();
        p2.send(n1, new PreProposal(new Ballot(5, 0, n2), false));
        cluster.advance(STEP);
        await().atMost(Duration.ofSeconds(10)).until(disk::writing);

        // The process dies with the write under way: its scheduler runs nothing more, the write never lands.
        process.crash();
        cluster.network.crash(n1);
        disk.crash();
        await().atMost(Duration.ofSeconds(10)).until(() -> !disk.writing());
        cluster.advance(Duration.ofSeconds(1));

        assertThat(p2.received(PreVote.class)).as("the promise died with the process").isEmpty();
        assertThat(disk.load()).hasValueSatisfying(s -> assertThat(s.promised()).as("not on disk either").isNull());
    }

    @Test
    void savesThatPileUpBehindASlowWriteBecomeOneWriteAndTheirVotesGoOutInOrder() {
        startAndWaitOutTheTtl();
        disk.hold();
        p2.send(n1, new PreProposal(new Ballot(5, 0, n2), false));
        cluster.advance(STEP);
        await().atMost(Duration.ofSeconds(10)).until(disk::writing);
        p2.send(n1, new PreProposal(new Ballot(5, 1, n2), false));
        p2.send(n1, new PreProposal(new Ballot(5, 2, n2), false));
        cluster.advance(STEP);
        assertThat(p2.received(PreVote.class)).isEmpty();

        disk.release();
        advanceUntil(() -> p2.received(PreVote.class).size() == 3);
        List<PreVote> votes = p2.received(PreVote.class);
        assertThat(votes).extracting(v -> v.ballot().round()).containsExactly(0L, 1L, 2L);
        assertThat(votes).allMatch(PreVote::accepted);
        assertThat(disk.writes()).as("the held write, then the two saves behind it as one").isEqualTo(2);
        assertThat(disk.load()).hasValueSatisfying(s -> assertThat(s.promised()).isEqualTo(new Ballot(5, 2, n2)));
    }

    @Test
    void aFailedWriteDropsTheVoteThatDependedOnItAndStopsTheNodeUntilItIsRestarted() {
        List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        election.addListener(events::add);
        startAndWaitOutTheTtl();
        disk.failNextWrite();
        p2.send(n1, new PreProposal(new Ballot(5, 0, n2), false));
        advanceUntil(() -> events.stream().anyMatch(ElectionEvent.ElectionError.class::isInstance));
        cluster.advance(Duration.ofMillis(50));
        assertThat(p2.received(PreVote.class)).as("the promise is not on disk, so it is not sent").isEmpty();
        assertThat(events).filteredOn(ElectionEvent.ElectionError.class::isInstance)
                .extracting(e -> ((ElectionEvent.ElectionError) e).message())
                .singleElement().asString()
                .startsWith("cannot save the election state (")
                .endsWith("what depended on it was not sent, and this node takes no further part in elections until"
                        + " it is restarted");
        assertThat(election.state()).isEqualTo(NodeState.STOPPED);
        assertThat(election.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("stopped: cannot save"));

        // Carrying on would let later votes rest on a state the disk may not hold: it answers nothing any more.
        p2.send(n1, new PreProposal(new Ballot(5, 1, n2), false));
        cluster.advance(Duration.ofMillis(50));
        assertThat(p2.received(PreVote.class)).isEmpty();

        // Started again on what its disk holds, it votes.
        process.crash();
        cluster.network.crash(n1);
        NodeScheduler again = new NodeScheduler(cluster.scheduler);
        QuorumElection restarted = new QuorumElection(SimCluster.GROUP, new MemberCard("n1", null,
                Capabilities.DEFAULT, Map.of()), cluster.config, cluster.network.restart(n1), disk, cluster.clock,
                again, new Random(8), Runnable::run, null);
        restarted.node().start();
        cluster.advance(TTL_AND_A_BIT);
        p2.send(n1, new PreProposal(new Ballot(5, 2, n2), false));
        advanceUntil(() -> !p2.received(PreVote.class).isEmpty());
        assertThat(p2.last(PreVote.class).ballot().round()).isEqualTo(2);
        assertThat(p2.last(PreVote.class).accepted()).isTrue();
        CompletableFuture<Void> closed = new CompletableFuture<>();
        again.execute(() -> restarted.node().close(false, closed));
        advanceUntil(closed::isDone);
    }

    private void startAndWaitOutTheTtl() {
        election.node().start();
        // No leader was heard, so after ttlTimeout the node may vote; nothing it does before needs a write.
        cluster.advance(TTL_AND_A_BIT);
        assertThat(disk.writes()).isZero();
    }

    /** Advances the simulation while the writer thread completes: its completion is handed to the scheduler. */
    private void advanceUntil(java.util.function.BooleanSupplier done) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> {
            cluster.advance(STEP);
            return done.getAsBoolean();
        });
    }
}
