package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.ElectionCompleted;
import dev.baton.core.ElectionEvent.ElectionError;
import dev.baton.core.ElectionEvent.ElectionStarted;
import dev.baton.core.ElectionEvent.LeaderChanged;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.Lease;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LeaseElectionTest {

    private final Cluster cluster = new Cluster();
    private final ElectionConfig config = cluster.config;

    @Test
    void aLoneNodeBecomesLeaderWithTheFirstTerm() {
        Cluster.Node a = cluster.start("a");

        assertThat(a.leads()).isTrue();
        assertThat(a.election.leadership()).map(Leadership::term).contains(1L);
        assertThat(a.events).extracting(ElectionEvent::getClass).containsExactly(
                ElectionStarted.class, LeadershipAcquired.class, LeaderChanged.class, ElectionCompleted.class);
        assertThat(a.events(ElectionCompleted.class).get(0).leader()).isTrue();
    }

    @Test
    void laterNodesFollowAndKnowTheLeader() {
        cluster.start("a");
        Cluster.Node b = cluster.start("b");

        assertThat(b.leads()).isFalse();
        assertThat(b.election.leader()).contains(new LeaderInfo("a", 1));
        assertThat(b.events(ElectionCompleted.class)).singleElement()
                .satisfies(done -> assertThat(done.leader()).isFalse());
        assertThat(b.events(LeadershipAcquired.class)).isEmpty();
    }

    @Test
    void aHealthyLeaderKeepsItsTermIndefinitely() {
        Cluster.Node a = cluster.start("a");
        cluster.start("b");

        cluster.advance(Duration.ofMinutes(10));

        assertThat(a.leads()).isTrue();
        assertThat(a.election.leadership()).map(Leadership::term).contains(1L);
        assertThat(a.events(LeadershipLost.class)).isEmpty();
        assertThat(cluster.leaders()).containsExactly(a);
    }

    @Test
    void theLocalDeadlineEndsSafelyBeforeTheStoreLeaseExpires() {
        Cluster.Node a = cluster.start("a");
        Leadership leadership = a.election.leadership().orElseThrow();
        Lease lease = cluster.store.leases().read(cluster.group).join().orElseThrow();

        Duration localValidity = leadership.remaining();

        assertThat(localValidity).isEqualTo(config.localValidity());
        assertThat(localValidity).isLessThan(lease.remaining().minus(config.safetyMargin()).plusNanos(1));
    }

    @Test
    void aLeaderWhoseStoreHangsDemotesByItsDeadline() {
        Cluster.Node a = cluster.start("a");
        long deadline = a.election.leadership().orElseThrow().deadlineNanos();
        cluster.advance(Duration.ofMillis(10));
        a.link.hang();

        cluster.advance(config.leaseTtl());

        assertThat(a.leads()).isFalse();
        assertThat(a.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.EXPIRED_LOCALLY));
        // Renewals kept failing and were retried; the leadership ended by the deadline of the last success.
        long lostAt = a.nanosOf(LeadershipLost.class, 0);
        long lastRenewalDeadline = deadline + config.renewInterval().toNanos();
        assertThat(lostAt).isLessThanOrEqualTo(lastRenewalDeadline);
        assertThat(a.events(ElectionError.class)).isNotEmpty();
    }

    @Test
    void theDeadlineAListenerHoldsMovesOnlyWithASuccessfulRenewal() {
        Cluster.Node a = cluster.add("a");
        List<Leadership> handed = new ArrayList<>();
        a.election.addListener(event -> {
            if (event instanceof LeadershipAcquired acquired) {
                handed.add(acquired.leadership());
            }
        });
        a.election.start();
        cluster.scheduler.runUntilIdle();
        Leadership held = handed.get(0);
        long granted = held.deadlineNanos();
        cluster.advance(config.renewInterval().plusMillis(1));
        assertThat(held.deadlineNanos()).as("moved by the renewal").isGreaterThan(granted);
        long renewed = held.deadlineNanos();

        a.link.hang();
        while (cluster.clock.nanoTime() < renewed - 1) {
            cluster.advance(Duration.ofNanos(Math.min(Duration.ofMillis(10).toNanos(),
                    renewed - 1 - cluster.clock.nanoTime())));
            assertThat(held.deadlineNanos()).isEqualTo(renewed);
            assertThat(held.isValid()).isTrue();
        }
        cluster.advance(Duration.ofNanos(1));

        assertThat(held.isValid()).as("at the deadline of the last successful renewal").isFalse();
        assertThat(a.leads()).isFalse();
    }

    @Test
    void aMetricsCallbackThatThrowsDoesNotEndRenewalsOrHeartbeats() {
        ElectionMetrics broken = new ElectionMetrics() {
            @Override
            public void storeCall(String operation, long nanos, boolean succeeded) {
                throw new IllegalStateException("metrics registry closed");
            }

            @Override
            public void leaseRenewed(long latencyNanos, long marginNanos) {
                throw new IllegalStateException("metrics registry closed");
            }
        };
        LeaseElection a = new LeaseElection(cluster.store, cluster.group, NodeInfo.of("a", "test-a"), config,
                cluster.clock, cluster.scheduler, new Random(1), Runnable::run, broken, null);
        List<ElectionEvent> events = new ArrayList<>();
        a.addListener(events::add);
        a.start();
        cluster.scheduler.runUntilIdle();

        cluster.advance(Duration.ofMinutes(2));

        assertThat(a.isLeader()).isTrue();
        assertThat(events).noneMatch(LeadershipLost.class::isInstance);
        assertThat(cluster.store.registry().members(cluster.group).join()).extracting(NodeInfo::id)
                .containsExactly("a");
        a.closeAsync();
        cluster.scheduler.runUntilIdle();
    }

    @Test
    void leadershipLostIsEmittedOncePerTerm() {
        Cluster.Node a = cluster.start("a");
        a.link.hang();
        cluster.advance(config.leaseTtl().multipliedBy(5));

        assertThat(a.events(LeadershipLost.class)).hasSize(1);
        assertThat(a.election.isLeader()).isFalse();
    }

    @Test
    void noSecondLeaderBeforeTheLostRenewalsLeaseExpires() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        cluster.advance(Duration.ofMillis(1500));
        a.link.hang();

        for (int step = 0; step < 1000; step++) {
            cluster.advance(Duration.ofMillis(10));
            assertThat(cluster.leaders()).as("leaders at %s", cluster.clock.elapsed()).hasSizeLessThanOrEqualTo(1);
        }

        assertThat(b.leads()).isTrue();
        long aLost = a.nanosOf(LeadershipLost.class, 0);
        long bAcquired = b.nanosOf(LeadershipAcquired.class, 0);
        assertThat(aLost).isLessThan(bAcquired);
        assertThat(b.election.leadership().orElseThrow().term()).isEqualTo(2);
    }

    @Test
    void withoutTheLocalDeadlineAHungLeaderOverlapsItsSuccessor() {
        // The unsafe mode the fault harness's --naive runs: what the designs Baton replaces do.
        Cluster naive = new Cluster(config.toBuilder().localDeadline(false).build(), 1);
        Cluster.Node a = naive.start("a");
        Cluster.Node b = naive.start("b");
        naive.advance(Duration.ofMillis(1500));
        a.link.hang();

        naive.advance(config.leaseTtl().multipliedBy(3));

        assertThat(b.leads()).isTrue();
        assertThat(a.leads()).as("a cut-off leader without a local deadline").isTrue();
        assertThat(naive.leaders()).containsExactlyInAnyOrder(a, b);
    }

    @Test
    void aFollowerWakesAtTheExpiryItReadNotAtTheNextPoll() {
        ElectionConfig slowPolls = ElectionConfig.fast().toBuilder()
                .checkInterval(Duration.ofSeconds(2)).electionJitter(Duration.ZERO).build();
        Cluster slow = new Cluster(slowPolls, 7);
        Cluster.Node a = slow.start("a");
        Cluster.Node b = slow.start("b");
        slow.advance(Duration.ofMillis(400));
        a.link.hang();
        a.link.replayOnHeal(false);
        Lease lastLease = slow.store.leases().read(slow.group).join().orElseThrow();
        long expiresAt = slow.clock.nanoTime() + lastLease.remaining().toNanos();

        slow.advance(Duration.ofSeconds(10));

        long acquiredAt = b.nanosOf(LeadershipAcquired.class, 0);
        assertThat(acquiredAt).isGreaterThanOrEqualTo(expiresAt);
        // Woken by the expiry it read, plus at most the expiry jitter; a renewal at 1 s may have moved the expiry.
        long renewedExpiry = expiresAt + slowPolls.renewInterval().toNanos();
        assertThat(acquiredAt).isLessThanOrEqualTo(renewedExpiry + slowPolls.expiryJitter().toNanos());
    }

    @Test
    void stepDownHandsTheLeaseOverWithoutWaitingForExpiry() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();

        assertThat(a.leads()).isFalse();
        assertThat(a.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.RELEASED));
        assertThat(b.leads()).isTrue();
        assertThat(b.election.leadership().orElseThrow().term()).isEqualTo(2);
        assertThat(cluster.clock.elapsed()).as("no time passed").isEqualTo(Duration.ZERO);
    }

    @Test
    void aNodeThatSteppedDownDoesNotGrabTheLeaseStraightBack() {
        Cluster.Node a = cluster.start("a");

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();
        assertThat(a.leads()).isFalse();

        cluster.advance(config.checkInterval().plus(config.electionJitter()).plusMillis(1));
        assertThat(a.leads()).as("alone, it takes the lease again after the hold-off").isTrue();
        assertThat(a.election.leadership().orElseThrow().term()).isEqualTo(2);
    }

    @Test
    void closingALeaderReleasesAndUnregisters() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        assertThat(cluster.store.registry().members(cluster.group).join()).hasSize(2);

        var closed = a.election.closeAsync();
        cluster.scheduler.runUntilIdle();

        assertThat(closed).isCompleted();
        assertThat(b.leads()).isTrue();
        assertThat(cluster.store.registry().members(cluster.group).join()).extracting(n -> n.id()).containsExactly("b");
    }

    @Test
    void theLeaseIsReleasedOnlyAfterListenersHaveSeenTheLoss() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        boolean[] bLedWhileAWasStillBeingTold = {false};
        a.election.addListener(event -> {
            if (event instanceof LeadershipLost) {
                bLedWhileAWasStillBeingTold[0] = b.leads();
            }
        });

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();

        assertThat(b.leads()).isTrue();
        assertThat(bLedWhileAWasStillBeingTold[0]).isFalse();
    }

    @Test
    void aLateAcquireReplyPastTheDeadlineIsNotLeadership() {
        Cluster.Node a = cluster.add("a");
        a.link.hang();
        a.election.start();
        cluster.scheduler.runUntilIdle();
        // The acquire times out; the store only sees it much later (as a paused Redis would).
        cluster.advance(config.storeTimeout().plusMillis(1));
        a.link.heal();
        cluster.scheduler.runUntilIdle();

        // The late reply is ignored; the node acquires afresh under a new term on its retry.
        cluster.advance(config.checkInterval());
        assertThat(a.events(LeadershipAcquired.class)).allSatisfy(acquired ->
                assertThat(acquired.term()).isGreaterThanOrEqualTo(2));
        assertThat(a.leads()).isTrue();
    }

    @Test
    void aLeaseTakenByAnotherIsLostAtTheNextRenewal() {
        Cluster.Node a = cluster.start("a");
        // Someone forcibly takes over (e.g. an operator released the lease by hand and another node acquired).
        cluster.store.leases().release(cluster.group, "a", 1).join();
        cluster.store.leases().acquire(cluster.group, dev.baton.core.NodeInfo.of("intruder", "x"), config.leaseTtl())
                .join();

        cluster.advance(config.renewInterval());

        assertThat(a.leads()).isFalse();
        assertThat(a.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isIn(LossReason.LEASE_TAKEN));
        assertThat(a.election.leader()).contains(new LeaderInfo("intruder", 2));
    }

    @Test
    void staleFencedWritesAreRefusedAfterAPausedLeaderIsReplaced() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        Leadership old = a.election.leadership().orElseThrow();
        a.link.hang();
        a.link.replayOnHeal(false);
        cluster.advance(config.leaseTtl().plusSeconds(1));
        assertThat(b.leads()).isTrue();

        // The paused leader wakes up and tries to write with the term it remembers.
        a.link.heal();
        var refusedLocally = a.election.fencedRegister("r").write(old, bytes("late")).join();
        var refusedByStore = a.election.fencedRegister("r").writeWithTerm("a", old.term(), bytes("late")).join();
        var accepted = b.election.fencedRegister("r").write(b.election.leadership().orElseThrow(), bytes("new")).join();

        assertThat(refusedLocally.accepted()).isFalse();
        assertThat(refusedByStore.accepted()).isFalse();
        assertThat(accepted.accepted()).isTrue();
        assertThat(old.isValid()).isFalse();
    }

    @Test
    void awaitElectedReportsTheFirstOutcome() throws Exception {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");

        assertThat(a.election.awaitElected(Duration.ZERO)).isTrue();
        assertThat(b.election.awaitElected(Duration.ZERO)).isFalse();
    }

    @Test
    void followersLearnOfANewLeaderByPush() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        Cluster.Node c = cluster.start("c");

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();

        Cluster.Node next = b.leads() ? b : c;
        Cluster.Node other = next == b ? c : b;
        assertThat(other.election.leader()).contains(new LeaderInfo(next.id, 2));
        assertThat(other.events(LeaderChanged.class)).extracting(LeaderChanged::leader)
                .endsWith(Optional.of(new LeaderInfo(next.id, 2)));
    }

    @Test
    void closeCompletesAtAnyMomentEvenWhenTheStoreHangs() {
        Cluster.Node a = cluster.start("a");
        Cluster.Node b = cluster.start("b");
        Cluster.Node never = cluster.add("never-started");
        a.link.hang();
        b.link.hang();

        var leaderClosed = a.election.closeAsync();
        var followerClosed = b.election.closeAsync();
        var unstartedClosed = never.election.closeAsync();
        cluster.advance(config.storeTimeout().multipliedBy(3));

        assertThat(leaderClosed).isCompleted();
        assertThat(followerClosed).isCompleted();
        assertThat(unstartedClosed).isCompleted();
        assertThat(a.leads()).isFalse();
        assertThat(a.election.closeAsync()).as("closing again").isCompleted();
        assertThat(a.events(LeadershipLost.class)).singleElement()
                .satisfies(lost -> assertThat(lost.reason()).isEqualTo(LossReason.RELEASED));
    }

    @Test
    void closingWhileAnAcquireIsInFlightHandsAGrantStraightBack() {
        Cluster.Node a = cluster.add("a");
        a.link.hang();
        a.election.start();
        cluster.scheduler.runUntilIdle();

        var closed = a.election.closeAsync();
        a.link.heal();
        cluster.advance(config.storeTimeout().multipliedBy(3));

        assertThat(closed).isCompleted();
        assertThat(a.events(LeadershipAcquired.class)).isEmpty();
        assertThat(cluster.store.leases().read(cluster.group).join()).as("lease left behind").isEmpty();
    }

    @Test
    void aGrantThatArrivesAfterItsTimeoutIsHandedBack() {
        Cluster.Node a = cluster.add("a");
        a.link.hang();
        a.election.start();
        cluster.scheduler.runUntilIdle();
        cluster.advance(config.storeTimeout().plusMillis(1));
        a.election.closeAsync();
        cluster.advance(config.storeTimeout().multipliedBy(3));

        // The paused store now runs the old acquire: the lease is granted to a node that stopped waiting.
        a.link.heal();
        cluster.scheduler.runUntilIdle();

        assertThat(cluster.store.leases().read(cluster.group).join()).as("lease left behind").isEmpty();
    }

    @Test
    void lateNoticesFromAnOlderTermDoNotEndTheHoldOffAfterStepDown() {
        Cluster.Node a = cluster.start("a");
        assertThat(a.election.leadership()).map(Leadership::term).contains(1L);

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();
        int eventsBefore = a.events.size();
        // Notices about a term this node has already seen superseded arrive only now (pub/sub is late, not ordered
        // with the replies this node got on its own connection).
        a.link.deliverLate(new dev.baton.core.store.LeaseNotice(
                dev.baton.core.store.LeaseNotice.Kind.ACQUIRED, "b", 1));
        a.link.deliverLate(new dev.baton.core.store.LeaseNotice(
                dev.baton.core.store.LeaseNotice.Kind.RELEASED, "b", 1));
        cluster.scheduler.runUntilIdle();

        assertThat(a.leads()).as("a re-took the lease it just stepped down from").isFalse();
        assertThat(a.events.subList(eventsBefore, a.events.size())).as("events from stale notices").isEmpty();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
