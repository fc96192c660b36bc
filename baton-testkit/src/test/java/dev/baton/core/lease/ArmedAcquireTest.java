package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A waiting follower sends its acquire from the thread that delivers the release notice (the in-memory store delivers
 * on the releasing caller's thread), before its own scheduler has run; and only when the machine would have contended
 * on that notice itself.
 */
class ArmedAcquireTest {

    private final Cluster cluster = new Cluster();
    private final NodeInfo outsider = NodeInfo.of("x", "outsider");

    private Optional<String> owner() {
        return cluster.store.leases().read(cluster.group).join().map(Lease::owner);
    }

    private void outsiderTakesTheLease() {
        cluster.store.leases().acquire(cluster.group, outsider, cluster.config.leaseTtl()).join();
    }

    @Test
    void aWaitingFollowerTakesAReleasedLeaseOnTheNoticeThread() {
        outsiderTakesTheLease();
        Cluster.Node b = cluster.start("b");
        assertThat(b.election.leader()).contains(new LeaderInfo("x", 1));
        long tasksBefore = cluster.scheduler.executed();

        cluster.store.leases().release(cluster.group, "x", 1).join();

        assertThat(owner()).as("b's acquire went out with the notice").contains("b");
        assertThat(cluster.scheduler.executed()).as("before b's scheduler ran").isEqualTo(tasksBefore);
        cluster.scheduler.runUntilIdle();
        assertThat(b.leads()).isTrue();
        assertThat(b.election.leadership()).map(Leadership::term).contains(2L);
        assertThat(b.events(LeadershipAcquired.class)).singleElement();
    }

    @Test
    void aFollowerThatLostTheRaceWaitsArmedForTheNextRelease() {
        outsiderTakesTheLease();
        Cluster.Node b = cluster.start("b");
        Cluster.Node c = cluster.start("c");

        cluster.store.leases().release(cluster.group, "x", 1).join();
        cluster.scheduler.runUntilIdle();
        assertThat(cluster.leaders()).hasSize(1);
        Cluster.Node leader = cluster.leaders().get(0);
        Cluster.Node other = leader == b ? c : b;
        assertThat(other.election.leader()).contains(new LeaderInfo(leader.id, 2));

        leader.election.stepDown();
        cluster.scheduler.runUntilIdle();

        assertThat(other.leads()).isTrue();
        assertThat(other.election.leadership()).map(Leadership::term).contains(3L);
        assertThat(cluster.leaders()).containsExactly(other);
    }

    @Test
    void aNodeHoldingOffAfterItsStepDownIsNotArmed() {
        Cluster.Node a = cluster.start("a");
        a.election.stepDown();
        cluster.scheduler.runUntilIdle();
        assertThat(owner()).isEmpty();

        // A release of a newer term than any it saw, as pub/sub may deliver one: still within a's hold-off.
        a.link.deliverLate(new LeaseNotice(LeaseNotice.Kind.RELEASED, "y", 7));

        assertThat(owner()).as("no acquire from the notice thread").isEmpty();
        cluster.scheduler.runUntilIdle();
        assertThat(owner()).as("nor from the scheduler").isEmpty();
        assertThat(a.leads()).isFalse();
    }

    @Test
    void aClosedFollowerDoesNotTakeAReleasedLease() {
        outsiderTakesTheLease();
        Cluster.Node b = cluster.start("b");
        b.election.closeAsync();
        cluster.scheduler.runUntilIdle();

        cluster.store.leases().release(cluster.group, "x", 1).join();
        cluster.scheduler.runUntilIdle();

        assertThat(owner()).isEmpty();
        assertThat(b.events(LeadershipAcquired.class)).isEmpty();
    }

    @Test
    void aShotFiresOnceAndOnlyForAReleaseNotOlderThanItsTerm() {
        ArmedAcquire armed = new ArmedAcquire();
        assertThat(armed.fire(5)).as("not armed").isNull();

        ArmedAcquire.Shot shot = new ArmedAcquire.Shot(3, 5, null);
        armed.arm(shot);
        assertThat(armed.fire(4)).as("a release older than the newest term seen is stale").isNull();
        assertThat(armed.armed()).isTrue();
        assertThat(armed.fire(5)).isSameAs(shot);
        assertThat(armed.fire(5)).as("only once").isNull();
        assertThat(armed.fired()).isTrue();
    }

    @Test
    void aFiredShotStaysInFlightUntilTheMachineTakesItOver() {
        ArmedAcquire armed = new ArmedAcquire();
        armed.arm(new ArmedAcquire.Shot(1, 1, null));
        armed.fire(1);

        armed.disarm();
        armed.arm(new ArmedAcquire.Shot(1, 1, null));
        assertThat(armed.fired()).as("neither disarm nor arm forgets an acquire in flight").isTrue();
        assertThat(armed.fire(1)).isNull();

        armed.takeOver();
        assertThat(armed.fired()).isFalse();
        assertThat(armed.armed()).isFalse();
    }
}
