package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.FaultInjectingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.context.Lifecycle;

/** {@link LeaderLifecycle}: components run exactly while a leadership is held, under a fake clock. */
class LeaderLifecycleTest {

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final FaultInjectingStore store = new FaultInjectingStore(new InMemoryStore(clock));
    private final List<String> log = new ArrayList<>();

    @Test
    void componentsStartInOrderWhenGrantedAndStopInReverseWhenReleased() {
        StoreElection election = election();
        LeaderLifecycle adapter = new LeaderLifecycle(election, new Component("consumer"), new Component("poller"));
        adapter.start();
        election.start();
        scheduler.runUntilIdle();
        assertThat(log).containsExactly("start consumer", "start poller");
        assertThat(adapter.componentsRunning()).isTrue();

        election.stepDown();
        scheduler.runUntilIdle();
        assertThat(log).containsExactly("start consumer", "start poller", "stop poller", "stop consumer");
        assertThat(adapter.componentsRunning()).isFalse();
        election.closeAsync();
        scheduler.runUntilIdle();
    }

    @Test
    void componentsStopAtTheLocalDeadlineWhenTheStoreStopsAnswering() {
        StoreElection election = election();
        LeaderLifecycle adapter = new LeaderLifecycle(election, new Component("consumer"));
        adapter.start();
        election.start();
        scheduler.runUntilIdle();
        long deadline = election.leadership().orElseThrow().deadlineNanos();
        store.fail();
        scheduler.advance(ElectionConfig.fast().leaseTtl());
        assertThat(log).containsExactly("start consumer", "stop consumer");
        // Stopped no later than the local deadline, which ends before the store could hand the lease on.
        assertThat(stoppedAt).isLessThanOrEqualTo(deadline);
        store.heal();
        election.closeAsync();
        scheduler.runUntilIdle();
    }

    @Test
    void anAdapterStartedWhileLeadingStartsItsComponentsAtOnceAndStopsThemWhenStopped() {
        StoreElection election = election();
        election.start();
        scheduler.runUntilIdle();
        LeaderLifecycle adapter = new LeaderLifecycle(election, new Component("consumer"));
        adapter.start();
        assertThat(log).containsExactly("start consumer");
        adapter.stop();
        assertThat(log).containsExactly("start consumer", "stop consumer");
        assertThat(adapter.isRunning()).isFalse();
        election.closeAsync();
        scheduler.runUntilIdle();
    }

    private long stoppedAt = Long.MAX_VALUE;

    private StoreElection election() {
        return Baton.election(store).group("consumers").node(NodeInfo.of("n1", "n1")).config(ElectionConfig.fast())
                .clock(clock).scheduler(scheduler).eventExecutor(Runnable::run).random(new Random(1)).build();
    }

    private final class Component implements Lifecycle {
        private final String name;
        private boolean running;

        Component(String name) {
            this.name = name;
        }

        @Override
        public void start() {
            running = true;
            log.add("start " + name);
        }

        @Override
        public void stop() {
            running = false;
            stoppedAt = clock.nanoTime();
            log.add("stop " + name);
        }

        @Override
        public boolean isRunning() {
            return running;
        }
    }
}
