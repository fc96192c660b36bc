package dev.baton.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.Lease;
import dev.baton.redis.RedisStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The zombie-primary nemesis on a private Sentinel deployment: once the primary is partitioned, node {@code n1}'s link
 * still reaches it while the Sentinels promote a replica, so a lease is granted on both primaries at once (the split
 * brain the fault exists to put in front of the checkers); once healed, {@code n1}'s link leads to the new primary.
 */
class SentinelZombieTargetTest {

    private static final String GROUP = "zombie-test";
    private static final Duration SHORT = Duration.ofSeconds(1);
    private static final Duration LONG = Duration.ofSeconds(60);

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
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                    assertThat(sentinelSide.leases().acquire(GROUP, majority, LONG).get(5, TimeUnit.SECONDS))
                            .isInstanceOf(AcquireResult.Granted.class));
            // The majority's lease lives on the promoted replica; the zombie never heard of it.
            assertThat(zombieSide.leases().acquire(GROUP, NodeInfo.create("c"), SHORT).get(5, TimeUnit.SECONDS))
                    .isInstanceOf(AcquireResult.Granted.class);

            target.heal(FaultKind.SENTINEL_ZOMBIE_PRIMARY);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                Optional<Lease> seen = zombieSide.leases().read(GROUP).get(5, TimeUnit.SECONDS);
                assertThat(seen).map(Lease::owner).contains(majority.id());
            });
        }
    }
}
