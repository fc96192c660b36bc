package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which second fault a multi-fault trial adds: never one on a part its first fault acts on (the two heals would undo
 * each other), only faults that start and heal in one step, none at probability 0, and drawn apart from the trial's
 * own stream, so that a seed's first faults are the same with {@code --multi-fault} as without.
 */
class SecondFaultTest {

    /** The order of Redis's faults: a trial draws an index into it. */
    private static final List<FaultKind> REDIS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.STORE_RESTART_EMPTY, FaultKind.STORE_RESTORE_SNAPSHOT, FaultKind.STORE_TRUNCATED_AOF,
            FaultKind.STORE_PAUSE, FaultKind.STORE_LATENCY, FaultKind.STORE_BLACKHOLE, FaultKind.STORE_RESET);

    /** Redis injects every fault with its nodes running. */
    private static final Predicate<FaultKind> NODES_RUN = kind -> false;

    @TempDir
    Path dir;

    @Test
    void aSeedDrawsTheFirstFaultsItDrewBeforeSecondFaultsExisted() {
        // Seed 1129's first twelve trials on Redis, as published runs drew them.
        List<FaultKind> drawn = new ArrayList<>();
        for (int trial = 1; trial <= 12; trial++) {
            drawn.add(REDIS.get(ChaosRun.trialRandom(1129, trial).nextInt(REDIS.size())));
        }

        assertThat(drawn).containsExactly(FaultKind.KILL_NODE, FaultKind.STORE_TRUNCATED_AOF, FaultKind.PAUSE_NODE,
                FaultKind.STORE_PAUSE, FaultKind.STORE_RESTORE_SNAPSHOT, FaultKind.KILL_NODE, FaultKind.KILL_NODE,
                FaultKind.STORE_LATENCY, FaultKind.STORE_LATENCY, FaultKind.STORE_PAUSE, FaultKind.NONE,
                FaultKind.NONE);
        assertThat(SecondFault.random(1129, 1).nextLong()).isNotEqualTo(ChaosRun.trialRandom(1129, 1).nextLong());
        assertThat(REDIS).isEqualTo(StoreTarget.withCommonFaults(FaultKind.STORE_RESTART_EMPTY,
                FaultKind.STORE_RESTORE_SNAPSHOT, FaultKind.STORE_TRUNCATED_AOF));
    }

    @Test
    void atProbabilityZeroNoTrialAddsASecondFault() {
        ChaosTarget target = peers("quorum");
        for (int trial = 1; trial <= 200; trial++) {
            for (FaultKind first : target.faults()) {
                assertThat(SecondFault.draw(SecondFault.random(7, trial), 0, first, target.faults(), target::needsNodesDown))
                        .isEmpty();
            }
        }
    }

    @Test
    void aSecondFaultNeverActsOnAPartTheFirstActsOn() {
        ChaosTarget target = peers("bully");
        for (FaultKind first : FaultKind.values()) {
            for (FaultKind second : SecondFault.partners(first, List.of(FaultKind.values()), target::needsNodesDown)) {
                assertThat(SecondFault.CAN_BE_SECOND).contains(second);
                assertThat(Collections.disjoint(SecondFault.parts(first, target.needsNodesDown(first)),
                        SecondFault.parts(second, target.needsNodesDown(second)))).as("%s + %s", first, second)
                        .isTrue();
            }
        }
    }

    @Test
    void theStoreAndTheNodesPairUpAndTheScriptedFaultsComeOnlyFirst() {
        assertThat(SecondFault.partners(FaultKind.STORE_BLACKHOLE, REDIS, NODES_RUN))
                .containsExactly(FaultKind.KILL_NODE, FaultKind.PAUSE_NODE, FaultKind.STORE_PAUSE);
        assertThat(SecondFault.partners(FaultKind.STORE_RESTORE_SNAPSHOT, REDIS, NODES_RUN))
                .containsExactly(FaultKind.KILL_NODE, FaultKind.PAUSE_NODE, FaultKind.STORE_LATENCY,
                        FaultKind.STORE_BLACKHOLE, FaultKind.STORE_RESET);
        assertThat(SecondFault.partners(FaultKind.KILL_NODE, REDIS, NODES_RUN)).doesNotContain(FaultKind.PAUSE_NODE,
                FaultKind.KILL_NODE, FaultKind.STORE_RESTORE_SNAPSHOT);
        // Bully restores its leader-record file with every node down: no node fault beside it.
        ChaosTarget bully = peers("bully");
        assertThat(SecondFault.partners(FaultKind.STORE_RESTORE_SNAPSHOT, bully.faults(), bully::needsNodesDown))
                .containsExactly(FaultKind.PARTITION_ONE, FaultKind.PARTITION_TWO);
    }

    @Test
    void atProbabilityOneEveryFirstFaultWithAPartnerGetsOneAndBothKindsAreDrawn() {
        ChaosTarget target = peers("quorum");
        Set<FaultKind> seconds = new HashSet<>();
        for (int trial = 1; trial <= 200; trial++) {
            Random random = SecondFault.random(11, trial);
            SecondFault.draw(random, 1, FaultKind.PARTITION_ONE, target.faults(), target::needsNodesDown).ifPresentOrElse(
                    seconds::add, () -> { throw new AssertionError("partition-one has partners on quorum"); });
        }
        assertThat(seconds).containsExactlyInAnyOrder(FaultKind.KILL_NODE, FaultKind.PAUSE_NODE);
    }

    @Test
    void anAmnesiacReplicaAndTheLeaderKilledAfterItIsOnlyAFirstFaultBesideTheHooks() {
        // It kills and restarts two nodes' processes one after the other: no node fault beside it, and never second.
        ChaosTarget quorum = peers("quorum");
        List<FaultKind> faults = new ArrayList<>(quorum.faults());
        faults.addAll(quorum.faultsOnRequest());

        assertThat(SecondFault.parts(FaultKind.REPLICA_RESTART_EMPTY, false))
                .containsExactly(SecondFault.Part.NODE_PROCESS);
        assertThat(SecondFault.CAN_BE_SECOND).doesNotContain(FaultKind.REPLICA_RESTART_EMPTY);
        assertThat(SecondFault.partners(FaultKind.REPLICA_RESTART_EMPTY, faults, quorum::needsNodesDown))
                .containsExactly(FaultKind.PARTITION_ONE, FaultKind.PARTITION_TWO, FaultKind.PEER_MESSAGE_CHAOS);
        for (FaultKind first : faults) {
            assertThat(SecondFault.partners(first, faults, quorum::needsNodesDown)).as(first.wireName())
                    .doesNotContain(FaultKind.REPLICA_RESTART_EMPTY);
        }
    }

    private ChaosTarget peers(String backend) {
        return new PeerTarget(backend, 3, dir);
    }
}
