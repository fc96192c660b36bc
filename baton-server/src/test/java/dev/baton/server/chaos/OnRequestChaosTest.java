package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The faults no other campaign in the build runs, on real processes, as {@code baton chaos} runs them: the two
 * stragglers (which run only when named), the zombie primary with the replica wait that closes it, trials that add
 * a second fault and aim at a hand-over, and an amnesiac replica of quorum's work items restarted before the leader
 * is killed (which also runs only when named, with workers). A handful of trials each, so that every fault kind runs in the build (see
 * {@link EveryFaultKindRunsInTheBuildTest}) without making it much longer.
 */
class OnRequestChaosTest {

    private static final long SEED = 20261129L;
    /** The stragglers, taken in turn on Redis. */
    static final List<FaultKind> STRAGGLERS = List.of(FaultKind.STORE_LINK_STRAGGLER,
            FaultKind.STORE_CALL_STRAGGLER);
    /** The zombie primary, once. */
    static final List<FaultKind> ZOMBIE = List.of(FaultKind.SENTINEL_ZOMBIE_PRIMARY);
    /** First faults that each have a partner among the others: a store fault and a node fault. */
    static final List<FaultKind> PAIRED = List.of(FaultKind.STORE_PAUSE, FaultKind.STORE_BLACKHOLE,
            FaultKind.KILL_NODE);
    /** A follower restarted with an empty replica, then the leader killed: on quorum with a worker, twice. */
    static final List<FaultKind> AMNESIA = List.of(FaultKind.REPLICA_RESTART_EMPTY);
    private static final int AMNESIA_TRIALS = 2;

    @TempDir
    Path dir;

    @Test
    void theStragglersViolateNoSafetyPropertyOnRedis() {
        ChaosVerdict verdict = run(settings("redis", STRAGGLERS));

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("store-link-straggler", "store-call-straggler");
    }

    @Test
    void aZombiePrimaryThatMustWaitForAReplicaViolatesNoSafetyProperty() {
        // Without the replica wait the old primary accepts n1's stale fenced writes (docs/chaos.md): the wait is what
        // closes that split brain, so the build runs the fault with it.
        ChaosRunSettings settings = new ChaosRunSettings("redis-sentinel-zombie", ZOMBIE.size(), SEED, 3, false,
                Optional.empty(), ZOMBIE, true, dir, new ChaosRunSettings.SentinelSettings(1,
                        ChaosRunSettings.SentinelSettings.defaults().downAfter(),
                        ChaosRunSettings.SentinelSettings.defaults().failoverTimeout()));

        ChaosVerdict verdict = run(settings);

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).contains("sentinel-zombie-primary");
    }

    @Test
    void trialsWithASecondFaultAimedAtAHandOverViolateNoSafetyProperty() {
        ChaosRunSettings settings = settings("redis", PAIRED).withShape(new TrialShape(1, TrialShape.Aim.HANDOVER));

        History history = runHistory(settings);
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        System.out.println(verdict.text());

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(FaultPairs.of(history).values().stream().mapToInt(Integer::intValue).sum())
                .as("every trial added a second fault: %s", FaultPairs.of(history)).isEqualTo(PAIRED.size());
        assertThat(verdict.text()).contains("Second faults: 3 trials added one");
    }

    @Test
    void anAmnesiacReplicaRestartedBeforeTheLeaderIsKilledLosesNoAcknowledgedItem() {
        // Each trial writes an item, restarts a follower (its replica comes back empty) and kills the leader the
        // moment it has started: the third node alone holds the item then, and it must still read back.
        ChaosRunSettings settings = new ChaosRunSettings("quorum", AMNESIA_TRIALS, SEED, 3, false, Optional.empty(),
                AMNESIA, true, dir).withWorkers(1);

        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        History history;
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings),
                new PrintStream(lines, true, StandardCharsets.UTF_8))) {
            history = run.run();
        }
        String output = lines.toString(StandardCharsets.UTF_8);
        System.out.print(output);
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        System.out.println(verdict.text());

        assertThat(verdict.safe()).as(verdict.text()).isTrue();
        assertThat(output).as("each trial starts once every restarted node's replica holds the items again")
                .doesNotContain("replica held no state");
        Map<Integer, Long> firstCrash = new HashMap<>();
        for (int trial = 1; trial <= AMNESIA_TRIALS; trial++) {
            int number = trial;
            List<HistoryEvent.Crash> crashes = history.eventsOf(HistoryEvent.Crash.class).stream()
                    .filter(crash -> crash.trial() == number).toList();
            assertThat(crashes).as("trial %d: a follower, then the leader", number).hasSize(2)
                    .extracting(HistoryEvent.Crash::node).doesNotHaveDuplicates();
            firstCrash.put(number, crashes.get(0).mono());
        }
        assertThat(history.eventsOf(HistoryEvent.ItemWrite.class)).as("an item acknowledged before its trial's crashes")
                .anySatisfy(write -> {
                    assertThat(write.outcome()).isEqualTo(HistoryEvent.Outcome.OK);
                    assertThat(write.answered()).isLessThan(firstCrash.get(write.trial()));
                });
        assertThat(history.eventsOf(HistoryEvent.ItemRead.class)).as("the items read back").isNotEmpty();
    }

    private ChaosRunSettings settings(String backend, List<FaultKind> faults) {
        return new ChaosRunSettings(backend, faults.size(), SEED, 3, false, Optional.empty(), faults, true, dir);
    }

    private static ChaosVerdict run(ChaosRunSettings settings) {
        ChaosVerdict verdict = ChaosVerdict.of(settings, runHistory(settings));
        System.out.println(verdict.text());
        assertThat(verdict.report().trials()).isEqualTo(settings.trials());
        return verdict;
    }

    private static History runHistory(ChaosRunSettings settings) {
        try (ChaosRun run = new ChaosRun(settings, ChaosCommand.open(settings), System.out)) {
            return run.run();
        }
    }
}
