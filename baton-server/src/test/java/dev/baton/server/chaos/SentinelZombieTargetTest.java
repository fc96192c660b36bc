package dev.baton.server.chaos;

import static dev.baton.server.chaos.Events.acquired;
import static dev.baton.server.chaos.Events.fault;
import static dev.baton.server.chaos.Events.trial;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import dev.baton.redis.RedisStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zombie-primary nemesis on a private Sentinel deployment: once the primary is partitioned, node {@code n1}'s link
 * still reaches it while the Sentinels promote a replica, so a lease is granted on both primaries at once (the split
 * brain the fault exists to put in front of the checkers); once healed, {@code n1}'s link leads to the new primary.
 */
class SentinelZombieTargetTest {

    private static final String GROUP = "zombie-test";
    private static final Duration SHORT = Duration.ofSeconds(1);
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void theZombieFaultSurvivesTheHistoryFileAndHasARowInTheReport() throws Exception {
        FaultKind kind = FaultKind.of("sentinel-zombie-primary");
        History history = History.of(
                trial(1, kind, 0, 2000, 4000, 2100.0),
                fault(1, kind, null, 0, 2000),
                acquired(1, "n1", 4, -1000, -990));
        Path file = dir.resolve("zombie.jsonl");
        history.writeTo(file);

        History read = History.read(file);

        assertThat(kind).isEqualTo(FaultKind.SENTINEL_ZOMBIE_PRIMARY);
        assertThat(kind.canLoseData()).as("the zombie's writes are lost when it is shot").isTrue();
        assertThat(read.eventsOf(HistoryEvent.Trial.class)).singleElement()
                .satisfies(t -> assertThat(t.fault()).isEqualTo(kind));
        ChaosRunSettings settings = new ChaosRunSettings("redis-sentinel-zombie", 1, 1, 3, false, Optional.empty(),
                List.of(), false, dir);
        assertThat(ChaosVerdict.of(settings, read).text()).contains(kind.wireName());
    }

    @Test
    void theOldPrimaryServesTheZombieSideWhileTheSentinelsPromoteAReplica() throws Exception {
        try (SentinelZombieTarget target = new SentinelZombieTarget(StoreTimings.replicated());
             CoordinationStore zombieSide = RedisStore.connect(target.storeUri(0));
             CoordinationStore sentinelSide = RedisStore.connect(target.storeUri(1))) {
            assertThat(target.faults()).contains(FaultKind.SENTINEL_ZOMBIE_PRIMARY);
            AcquireResult first = zombieSide.leases().acquire(GROUP, NodeInfo.create("a"), SHORT)
                    .get(5, TimeUnit.SECONDS);
            assertThat(first).isInstanceOf(AcquireResult.Granted.class);
            target.beforeTrial(FaultKind.SENTINEL_ZOMBIE_PRIMARY);

            target.inject(FaultKind.SENTINEL_ZOMBIE_PRIMARY, 0, Duration.ZERO);

            NodeInfo majority = NodeInfo.create("b");
            // Refused until the Sentinels promote a replica and the first lease, not renewed there, runs out.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .untilAsserted(() -> assertThat(
                            sentinelSide.leases().acquire(GROUP, majority, LONG).get(5, TimeUnit.SECONDS))
                            .isInstanceOf(AcquireResult.Granted.class));
            // The majority's lease lives on the promoted replica; the zombie never heard of it.
            assertThat(zombieSide.leases().acquire(GROUP, NodeInfo.create("c"), SHORT).get(5, TimeUnit.SECONDS))
                    .isInstanceOf(AcquireResult.Granted.class);

            target.heal(FaultKind.SENTINEL_ZOMBIE_PRIMARY);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .untilAsserted(() -> {
                        Optional<Lease> seen = zombieSide.leases().read(GROUP).get(5, TimeUnit.SECONDS);
                        assertThat(seen).map(Lease::owner).contains(majority.id());
                    });
        }
    }
}
