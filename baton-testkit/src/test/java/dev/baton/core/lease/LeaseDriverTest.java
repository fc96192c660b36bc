package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.store.Lease;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The driver's latency shortcut on the release path, reached deterministically: a graceful release leaves from the
 * thread that told the last listener, without a hop back to the election's scheduler, and a listener that never
 * returns holds it back only until the ended leadership's deadline. (The other shortcut, the acquire sent from the
 * notice thread, is {@link ArmedAcquireTest}'s.)
 */
class LeaseDriverTest {

    private final Cluster cluster = new Cluster();

    private Optional<String> owner() {
        return cluster.store.leases().read(cluster.group).join().map(Lease::owner);
    }

    @Test
    void theReleaseLeavesFromTheThreadThatToldTheLastListener() {
        Cluster.Node a = cluster.start("a");
        ArrayDeque<Runnable> listenerThread = new ArrayDeque<>();
        a.election.addListener(event -> { }, listenerThread::add);

        a.election.stepDown();
        cluster.scheduler.runUntilIdle();
        assertThat(a.leads()).isFalse();
        assertThat(owner()).as("held while a listener has not returned from the loss").contains("a");

        long tasksBefore = cluster.scheduler.executed();
        while (!listenerThread.isEmpty()) {
            listenerThread.poll().run();
        }
        assertThat(owner()).as("released as the listener returned").isEmpty();
        assertThat(cluster.scheduler.executed()).as("before the scheduler ran again").isEqualTo(tasksBefore);
    }

    @Test
    void aListenerThatNeverReturnsHoldsTheReleaseBackUntilTheDeadlineOnly() {
        Cluster.Node a = cluster.start("a");
        long deadline = a.election.leadership().orElseThrow().deadlineNanos();
        a.election.addListener(event -> { }, task -> { });

        a.election.closeAsync();
        cluster.scheduler.runUntilIdle();
        cluster.advance(Duration.ofNanos(deadline - cluster.clock.nanoTime() - 1));
        assertThat(owner()).as("held until the deadline").contains("a");

        cluster.advance(Duration.ofNanos(1));
        assertThat(owner()).as("released at the deadline").isEmpty();
    }
}
