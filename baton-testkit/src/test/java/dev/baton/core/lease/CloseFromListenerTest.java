package dev.baton.core.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} from a listener that runs on the election's own thread (a direct executor) must not wait for that
 * thread, which is itself: the lease would be held, and every election task stalled, until the close timed out.
 * Real threads, so the wait is bounded well below the 30 s lease a stalled close would hold.
 */
class CloseFromListenerTest {

    private static final Duration WELL_BELOW_THE_LEASE = Duration.ofSeconds(10);

    @Test
    void aListenerOnTheElectionsThreadClosesPromptlyAndTheLeaseIsReleased() {
        InMemoryStore store = new InMemoryStore();
        ElectionConfig config = ElectionConfig.defaults();
        Election a = Baton.election(store).group("reports").node(NodeInfo.of("a", "test-a")).config(config)
                .eventExecutor(Runnable::run).recordEvents(false).build();
        AtomicBoolean closeReturned = new AtomicBoolean();
        List<Object> aEvents = new CopyOnWriteArrayList<>();
        a.addListener(event -> {
            aEvents.add(event);
            if (event instanceof LeadershipAcquired) {
                a.close();
                closeReturned.set(true);
            }
        });
        a.start();

        await().atMost(WELL_BELOW_THE_LEASE).untilTrue(closeReturned);
        assertThat(a.closeAsync()).succeedsWithin(WELL_BELOW_THE_LEASE);
        assertThat(aEvents).filteredOn(LeadershipLost.class::isInstance).singleElement()
                .satisfies(lost -> assertThat(((LeadershipLost) lost).reason()).isEqualTo(LossReason.RELEASED));

        Election b = Baton.election(store).group("reports").node(NodeInfo.of("b", "test-b")).config(config)
                .recordEvents(false).build();
        try {
            b.start();
            await("the released lease taken at once").atMost(WELL_BELOW_THE_LEASE).until(b::isLeader);
        } finally {
            b.close();
        }
    }
}
