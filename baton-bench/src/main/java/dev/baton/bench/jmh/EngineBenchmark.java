package dev.baton.bench.jmh;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The CPU cost of the lease engine itself, without threads or I/O: elections on the in-memory store, driven by the
 * testkit's deterministic scheduler on a fake clock, listeners called directly. What remains of a handover's latency
 * on Redis beyond these numbers is network, Redis and thread hand-offs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EngineBenchmark {

    private FakeClock clock;
    private DeterministicScheduler scheduler;
    private InMemoryStore store;
    private Election first;
    private Election second;

    @Setup(Level.Trial)
    public void setUp() {
        clock = new FakeClock();
        scheduler = new DeterministicScheduler(clock);
        store = new InMemoryStore(clock);
        first = election("bench-engine", "first");
        second = election("bench-engine", "second");
        first.start();
        scheduler.runUntilIdle();
        second.start();
        scheduler.runUntilIdle();
    }

    private Election election(String group, String id) {
        return Baton.election(store).group(group).node(NodeInfo.of(id, "bench"))
                .config(ElectionConfig.defaults()).clock(clock).scheduler(scheduler)
                .eventExecutor(Runnable::run).random(new Random(1)).build();
    }

    /**
     * A whole graceful handover: the leader steps down, its release notice reaches the follower, the follower
     * acquires and becomes leader (every event emitted on the way). Alternates between the two elections.
     */
    @Benchmark
    public boolean handover() {
        Election leader = first.isLeader() ? first : second;
        leader.stepDown();
        scheduler.runUntilIdle();
        if (leader.isLeader()) {
            throw new IllegalStateException("the leader did not hand over");
        }
        return first.isLeader();
    }

    /**
     * An uncontested election from scratch: build, start, acquire, then close (release and unregister). The group
     * is reused, each time free again, so the in-memory store does not grow across invocations.
     */
    @Benchmark
    public boolean firstElection() {
        Election election = election("bench-engine-first", "only");
        election.start();
        scheduler.runUntilIdle();
        boolean leads = election.isLeader();
        election.closeAsync();
        scheduler.runUntilIdle();
        return leads;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        first.closeAsync();
        second.closeAsync();
        scheduler.runUntilIdle();
    }
}
