package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a store that expires leases on its own wall clock (Redis {@code PX}, PostgreSQL {@code expires_at <= now()})
 * does to exclusion when that clock steps forward, on a real server with a {@link StoreClock}: a step smaller than
 * the election's margin ({@code safetyMargin + leaseTtl * maxClockDrift}) lets no other node in while the holder
 * counts itself leader; a step larger than the margin does, which is the assumption docs/architecture.md states ("the
 * store's clock does not step forward by more than the margin"). A backend's test extends this class, starts its
 * server with a store clock and implements {@link #newStore()} and {@link #storeClock()}.
 *
 * <p>In each test node {@code a} leads a group through an election, with a lease of {@value #TTL_MILLIS} ms, and its
 * link to the store is then held ({@link FaultInjectingStore#hang()}): it renews no more and hears no notice, so
 * its leadership lasts exactly until its local deadline, and the only thing that can end its lease early at the
 * store is the store's clock. Node {@code b} asks the store for the lease directly.
 */
public abstract class StoreClockStepSuite {

    private static final long TTL_MILLIS = 2_000;
    /** A lease of 2 s with the default margin for it (5 %): margin = 100 ms + 2 s * 1 % drift = 120 ms. */
    private static final ElectionConfig CONFIG = ElectionConfig.fast().toBuilder()
            .leaseTtl(Duration.ofMillis(TTL_MILLIS)).safetyMargin(Duration.ofMillis(TTL_MILLIS / 20)).build();
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration BOUND = CONFIG.leaseTtl().plusSeconds(3);

    /** A new client on the backend under test, on the server whose clock {@link #storeClock()} moves. */
    protected abstract CoordinationStore newStore();

    /** The clock of the server {@link #newStore()} connects to. */
    protected abstract StoreClock storeClock();

    private final List<AutoCloseable> opened = new ArrayList<>();
    private String group;

    @BeforeEach
    void freshGroup() {
        group = "store-clock-" + UUID.randomUUID();
    }

    @AfterEach
    void closeAndResetTheClock() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
        storeClock().reset();
    }

    /** The margin a store-clock step must stay within: {@code safetyMargin + leaseTtl * maxClockDrift}. */
    private static Duration margin() {
        return CONFIG.safetyMargin().plus(Duration.ofNanos(
                (long) (CONFIG.leaseTtl().toNanos() * CONFIG.maxClockDrift())));
    }

    @Test
    void aStoreClockSteppingForwardPastTheMarginEndsALeaseEarly() {
        Leadership first = leadThenHoldTheLink("a");
        CoordinationStore other = open(newStore());

        storeClock().step(CONFIG.leaseTtl().plusSeconds(1));
        long term = await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> tryAcquire(other, "b"), granted -> granted > 0);

        assertThat(first.isValid())
                .as("the assumption is broken: the store expired the lease of %s early, so b was granted it while "
                        + "a still counts itself leader (%s left)", first, first.remaining())
                .isTrue();
        assertThat(term).as("fencing still holds: b's term is above a's").isGreaterThan(first.term());
    }

    @Test
    void aStoreClockSteppingForwardByLessThanTheMarginKeepsExclusion() {
        Leadership first = leadThenHoldTheLink("a");
        CoordinationStore other = open(newStore());

        storeClock().step(margin().dividedBy(2));
        long term = await().atMost(BOUND).pollInterval(Duration.ofMillis(5))
                .until(() -> tryAcquire(other, "b"), granted -> granted > 0);

        assertThat(first.isValid())
                .as("b was granted the lease after a store-clock step of half the margin (%s) while %s is valid",
                        margin().dividedBy(2), first)
                .isFalse();
        assertThat(term).isGreaterThan(first.term());
    }

    /**
     * Starts node {@code id}'s election, waits until it leads, and holds its link to the store from then on: no
     * renewal, no notice. Returns its leadership, valid until its local deadline.
     */
    private Leadership leadThenHoldTheLink(String id) {
        // The wrapper does not close the store it wraps: close both (an unclosed Lettuce client outlives the suite).
        FaultInjectingStore link = new FaultInjectingStore(open(newStore()));
        opened.add(link);
        StoreElection election = Baton.election(link).group(group).config(CONFIG)
                .node(NodeInfo.of(id, "store-clock")).build();
        // Closed before its link, which is healed first so that the close does not wait on a held call.
        opened.add(() -> {
            link.heal();
            election.close();
        });
        election.start();
        Leadership leadership = await().atMost(BOUND).until(() -> election.leadership().orElse(null),
                l -> l != null && l.isValid());
        link.hang();
        return leadership;
    }

    private <T extends AutoCloseable> T open(T closeable) {
        opened.add(closeable);
        return closeable;
    }

    /** The term granted to {@code nodeId}, or 0 if the lease is still held. */
    private long tryAcquire(CoordinationStore store, String nodeId) throws Exception {
        CompletableFuture<AcquireResult> call = store.leases().acquire(group, NodeInfo.of(nodeId, "store-clock"),
                LONG);
        AcquireResult result = call.get(10, TimeUnit.SECONDS);
        return result instanceof AcquireResult.Granted granted ? granted.term() : 0;
    }
}
