package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.Leadership;
import dev.baton.core.store.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random schedules of five contending nodes with faults (store hangs with late replay, outright failures, heals,
 * step-downs, one call of a node held back while its later calls pass and delivered late) on a fake clock. Exclusion
 * is checked at every grant (no other leadership handed out is still valid when a node is told it leads); the other
 * safety invariants after every 10 ms of virtual time. A failure names the seed so the schedule can be replayed.
 */
class LeaseElectionSimulationTest {

    private static final int SCHEDULES = 60;
    private static final int STEPS = 3_000;
    /** The calls a straggler fault may hold back. */
    private static final String[] STRAGGLERS = {"acquire", "renew", "release"};

    @Test
    void randomFaultSchedulesNeverProduceTwoLeadersOrARepeatedTerm() {
        int termsIssued = 0;
        for (long seed = 1; seed <= SCHEDULES; seed++) {
            try {
                termsIssued += runSchedule(seed);
            } catch (AssertionError e) {
                throw new AssertionError("schedule with seed " + seed + " failed: " + e.getMessage(), e);
            }
        }
        assertThat(termsIssued).as("the schedules really moved leadership around").isGreaterThan(SCHEDULES * 5);
    }

    private int runSchedule(long seed) {
        Random random = new Random(seed);
        ElectionConfig config = ElectionConfig.fast();
        Cluster cluster = new Cluster(config, seed);
        List<Cluster.Node> nodes = new ArrayList<>();
        List<Leadership> handedOut = new ArrayList<>();
        List<String> overlaps = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Cluster.Node node = cluster.add("n" + i);
            node.election.addListener(event -> {
                if (event instanceof LeadershipAcquired acquired) {
                    handedOut.stream().filter(Leadership::isValid).forEach(other -> overlaps.add(
                            acquired.leadership() + " granted at " + cluster.clock.elapsed() + " while " + other
                                    + " was valid"));
                    handedOut.removeIf(leadership -> !leadership.isValid());
                    handedOut.add(acquired.leadership());
                }
            });
            node.election.start();
            nodes.add(node);
        }
        Map<Long, String> holderOfTerm = new HashMap<>();

        for (int step = 0; step < STEPS; step++) {
            if (random.nextInt(40) == 0) {
                Cluster.Node victim = nodes.get(random.nextInt(nodes.size()));
                switch (random.nextInt(6)) {
                    case 0 -> victim.link.hang();
                    case 1 -> victim.link.fail();
                    case 2 -> victim.link.heal();
                    case 3 -> victim.link.holdNext(STRAGGLERS[random.nextInt(STRAGGLERS.length)]);
                    case 4 -> victim.link.deliverHeld();
                    default -> victim.election.stepDown();
                }
            }
            cluster.advance(Duration.ofMillis(10));
            assertThat(overlaps).as("exclusion").isEmpty();
            checkInvariants(cluster, nodes, holderOfTerm);
        }
        nodes.forEach(node -> {
            while (node.link.deliverHeld()) {
                cluster.scheduler.runUntilIdle();
            }
            node.link.heal();
        });
        cluster.advance(config.leaseTtl().multipliedBy(3));
        checkInvariants(cluster, nodes, holderOfTerm);
        assertThat(cluster.leaders()).as("a leader once every fault has healed").hasSize(1);
        return holderOfTerm.size();
    }

    private static void checkInvariants(Cluster cluster, List<Cluster.Node> nodes, Map<Long, String> holderOfTerm) {
        List<Cluster.Node> leaders = cluster.leaders();
        assertThat(leaders).as("leaders at %s", cluster.clock.elapsed()).hasSizeLessThanOrEqualTo(1);
        for (Cluster.Node leader : leaders) {
            // A node that believes it leads is backed by the store: its lease, its term, not yet expired.
            Leadership leadership = leader.election.leadership().orElseThrow();
            Optional<Lease> lease = cluster.store.leases().read(cluster.group).join();
            assertThat(lease).as("store lease while %s leads term %d", leader.id, leadership.term())
                    .hasValueSatisfying(l -> {
                        assertThat(l.owner()).isEqualTo(leader.id);
                        assertThat(l.term()).isEqualTo(leadership.term());
                    });
        }
        for (Cluster.Node node : nodes) {
            List<LeadershipAcquired> acquired = node.events(LeadershipAcquired.class);
            for (LeadershipAcquired event : acquired) {
                String previous = holderOfTerm.putIfAbsent(event.term(), node.id);
                assertThat(previous == null || previous.equals(node.id))
                        .as("term %d acquired by %s and %s", event.term(), previous, node.id).isTrue();
            }
            List<Long> lostTerms = node.events(LeadershipLost.class).stream().map(LeadershipLost::term).toList();
            assertThat(lostTerms).as("lost events of %s", node.id).doesNotHaveDuplicates();
            assertThat(acquired.stream().map(LeadershipAcquired::term).toList())
                    .as("terms acquired by %s", node.id).isSorted().doesNotHaveDuplicates();
        }
    }
}
