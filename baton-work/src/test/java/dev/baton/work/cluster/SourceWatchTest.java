package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Registration;
import dev.baton.work.WorkItem;
import dev.baton.work.source.DesiredStateSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A desired state source that signals its changes: only the leader watches it, a signal reloads the desired state at
 * once (long before the reconcile interval), and the watch ends with the leadership.
 */
class SourceWatchTest {

    private static final Duration INTERVAL = Duration.ofHours(1);

    private final SimCluster sim = new SimCluster().withWorkers(2);
    private final WatchedSource source = new WatchedSource();

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void aSignalReachesTheWorkersWithoutWaitingForTheReconcileInterval() {
        sim.config = sim.config.toBuilder().reconcileInterval(INTERVAL).build();
        SimCluster.Node first = sim.start("p1", b -> b.source(source));
        sim.start("p2", b -> b.source(source));
        sim.run(Duration.ofSeconds(3));
        assertThat(source.watches).as("only the leader watches").hasSize(1);
        assertThat(first.cluster.isLeading()).isTrue();

        source.items.add(SimCluster.item("display-1;cam-1"));
        sim.run(Duration.ofSeconds(1));
        assertThat(sim.placements()).as("not signalled yet: no reload before the interval").isEmpty();

        source.watches.get(0).signal();
        sim.run(Duration.ofSeconds(1));
        assertThat(sim.placements()).containsOnlyKeys("display-1;cam-1");
    }

    @Test
    void theWatchEndsWithTheLeadershipAndTheNextLeaderWatches() {
        sim.config = sim.config.toBuilder().reconcileInterval(INTERVAL).build();
        SimCluster.Node first = sim.start("p1", b -> b.source(source));
        sim.start("p2", b -> b.source(source));
        sim.run(Duration.ofSeconds(3));
        assertThat(first.cluster.isLeading()).isTrue();

        first.election.stepDown();
        sim.run(Duration.ofSeconds(3));

        assertThat(source.watches).hasSize(2);
        assertThat(source.watches.get(0).closed).as("the old leader's watch").isTrue();
        assertThat(source.watches.get(1).closed).as("the new leader's watch").isFalse();
        source.items.add(SimCluster.item("display-2;cam-2"));
        source.watches.get(1).signal();
        sim.run(Duration.ofSeconds(1));
        assertThat(sim.placements()).containsOnlyKeys("display-2;cam-2");
    }

    @Test
    void aSourceWhoseWatchFailsIsStillReloadedAtTheInterval() {
        DesiredStateSource failing = new DesiredStateSource() {
            @Override
            public List<WorkItem> load() {
                return source.load();
            }

            @Override
            public Registration watch(Runnable changed) {
                throw new IllegalStateException("no channel");
            }
        };
        sim.config = sim.config.toBuilder().reconcileInterval(Duration.ofSeconds(30)).build();
        sim.start("p1", b -> b.source(failing));
        sim.run(Duration.ofSeconds(3));

        source.items.add(SimCluster.item("display-3;cam-3"));
        sim.run(Duration.ofSeconds(31));

        assertThat(sim.placements()).containsOnlyKeys("display-3;cam-3");
    }

    /** A source whose items a test changes, with the watches the leaders opened. */
    private static final class WatchedSource implements DesiredStateSource {
        final List<WorkItem> items = new CopyOnWriteArrayList<>();
        final List<Watch> watches = new CopyOnWriteArrayList<>();

        @Override
        public List<WorkItem> load() {
            return List.copyOf(items);
        }

        @Override
        public Registration watch(Runnable changed) {
            Watch watch = new Watch(changed);
            watches.add(watch);
            return watch;
        }
    }

    private static final class Watch implements Registration {
        final Runnable changed;
        volatile boolean closed;

        Watch(Runnable changed) {
            this.changed = changed;
        }

        void signal() {
            changed.run();
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
