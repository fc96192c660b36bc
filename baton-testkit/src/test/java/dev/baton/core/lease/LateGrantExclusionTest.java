package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.Leadership;
import dev.baton.core.store.Lease;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Exclusion against stragglers: an acquire of this node's that reaches the store after a later one (a request held in
 * one pooled connection, a task queued behind a slow one) is granted a newer term, since the store grants the holder
 * of a live lease a new term when it asks again. Giving that grant back frees the lease, so whatever this node leads
 * must have ended first; and no grant the store has since moved past may be led.
 */
class LateGrantExclusionTest {

    private final Cluster cluster = new Cluster();

    /** Every leadership each node was handed, to ask which are still valid. */
    private final List<Leadership> handedOut = new ArrayList<>();
    /** For each leadership handed out, the other leaderships still valid at that moment: exclusion wants none. */
    private final List<String> overlaps = new ArrayList<>();

    private Cluster.Node add(String id) {
        Cluster.Node node = cluster.add(id);
        node.election.addListener(event -> {
            if (event instanceof LeadershipAcquired acquired) {
                valid().forEach(other -> overlaps.add(acquired.leadership() + " while " + other + " was valid"));
                handedOut.add(acquired.leadership());
            }
        });
        return node;
    }

    private List<Leadership> valid() {
        return handedOut.stream().filter(Leadership::isValid).toList();
    }

    private Optional<Lease> lease() {
        return cluster.store.leases().read(cluster.group).join();
    }

    /** Starts {@code a} with its first acquire held back, and lets its retry make it leader. */
    private Cluster.Node leaderWithAStraggler() {
        Cluster.Node a = add("a");
        a.link.holdNext("acquire");
        a.election.start();
        cluster.advance(cluster.config.storeTimeout().plus(cluster.config.checkInterval()));
        assertThat(a.leads()).as("a leads through its second acquire").isTrue();
        return a;
    }

    @Test
    void aLateGrantToItselfEndsTheTermItLeadsBeforeTheLeaseIsReleased() {
        Cluster.Node a = leaderWithAStraggler();
        Leadership first = a.election.leadership().orElseThrow();
        Cluster.Node b = add("b");
        b.election.start();
        cluster.scheduler.runUntilIdle();
        assertThat(b.leads()).isFalse();

        // The first acquire reaches the store only now: a holds a live lease, so it is granted a newer term.
        assertThat(a.link.deliverHeld()).isTrue();
        cluster.scheduler.runUntilIdle();

        assertThat(first.isValid()).as("a's first term, after the store granted a newer one").isFalse();
        assertThat(a.events(LeadershipLost.class)).first()
                .satisfies(lost -> {
                    assertThat(lost.term()).isEqualTo(first.term());
                    assertThat(lost.reason()).isEqualTo(LossReason.LEASE_TAKEN);
                });
        assertThat(overlaps).as("leaderships granted while another was valid").isEmpty();
        assertThat(valid()).as("valid leaderships at once").hasSizeLessThanOrEqualTo(1);
        assertThat(cluster.leaders()).hasSize(1);
        Leadership now = cluster.leaders().get(0).election.leadership().orElseThrow();
        assertThat(now.term()).isGreaterThan(first.term() + 1);
        assertThat(lease()).map(Lease::term).contains(now.term());
    }

    @Test
    void theLeaseOfTheNewerGrantIsReleasedOnlyAfterTheListenersOfTheOldTermReturned() {
        Cluster.Node a = leaderWithAStraggler();
        long firstTerm = a.election.leadership().orElseThrow().term();
        List<Optional<Lease>> leaseWhenTold = new ArrayList<>();
        a.election.addListener(event -> {
            if (event instanceof LeadershipLost) {
                leaseWhenTold.add(lease());
            }
        });

        a.link.deliverHeld();
        cluster.scheduler.runUntilIdle();

        assertThat(leaseWhenTold).singleElement().satisfies(held ->
                assertThat(held).as("the lease while a's listeners hear the loss of term %d", firstTerm)
                        .map(Lease::owner).contains("a"));
    }

    @Test
    void aGrantBelowATermAlreadySeenIsNotLed() {
        Cluster.Node a = add("a");
        a.link.holdNext("acquire");
        a.election.start();
        cluster.advance(cluster.config.storeTimeout());
        // a's first acquire timed out. Its retry is granted term 1 at once, but the reply is held on the way back.
        a.link.holdNextReply("acquire");
        while (lease().isEmpty()) {
            cluster.advance(java.time.Duration.ofMillis(1));
        }
        assertThat(lease()).map(Lease::owner).contains("a");
        assertThat(a.leads()).isFalse();
        Cluster.Node b = add("b");
        b.election.start();
        cluster.scheduler.runUntilIdle();
        assertThat(b.leads()).isFalse();

        // Now the first acquire runs at the store (granted a newer term to a, which a gives back: b takes the
        // lease), and only then does the reply to the second one arrive.
        assertThat(a.link.deliverHeld()).isTrue();
        cluster.scheduler.runUntilIdle();
        assertThat(a.link.deliverHeld()).isTrue();
        cluster.scheduler.runUntilIdle();

        assertThat(overlaps).as("leaderships granted while another was valid").isEmpty();
        assertThat(valid()).as("valid leaderships at once").hasSizeLessThanOrEqualTo(1);
        assertThat(a.events(LeadershipAcquired.class)).as("a led a term the store had moved past").isEmpty();
        assertThat(cluster.leaders()).containsExactly(b);
    }

    @Test
    void anAttemptAndAReleaseNoticeRacingSendOneAcquireBetweenThem() throws Exception {
        // The machine's attempt (on its scheduler) and the notice thread's fire race for an armed shot; exactly one
        // of them may send the acquire, whichever order they run in.
        int rounds = 20_000;
        ArmedAcquire armed = new ArmedAcquire();
        CyclicBarrier start = new CyclicBarrier(2);
        CyclicBarrier end = new CyclicBarrier(2);
        AtomicInteger fired = new AtomicInteger();
        int[] doubled = new int[1];
        Thread notices = new Thread(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    start.await();
                    if (armed.fire(1) != null) {
                        fired.incrementAndGet();
                    }
                    end.await();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        notices.start();
        for (int i = 0; i < rounds; i++) {
            armed.arm(new ArmedAcquire.Shot(1, 1, null));
            int firedBefore = fired.get();
            start.await();
            boolean attemptSends = armed.disarmForAttempt();
            end.await();
            int sent = (attemptSends ? 1 : 0) + (fired.get() - firedBefore);
            if (sent != 1) {
                doubled[0]++;
            }
            armed.takeOver();
        }
        notices.join();

        assertThat(doubled[0]).as("rounds in which other than one acquire was sent").isZero();
    }
}
