package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LeaderOnly} methods on elections driven by a fake clock: who runs, and when not any more. */
class LeaderOnlyTest {

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final InMemoryStore store = new InMemoryStore(clock);
    private StoreElection first;
    private StoreElection second;

    @BeforeEach
    void twoNodes() {
        first = election("first");
        second = election("second");
        first.start();
        scheduler.runUntilIdle();
        second.start();
        scheduler.runUntilIdle();
        assertThat(first.isLeader()).isTrue();
        assertThat(second.isLeader()).isFalse();
    }

    @AfterEach
    void close() {
        second.closeAsync();
        first.closeAsync();
        scheduler.runUntilIdle();
    }

    @Test
    void onlyTheLeaderRunsAndItRunsUnderItsTerm() {
        Job onFirst = proxied(first);
        Job onSecond = proxied(second);
        onFirst.run();
        onSecond.run();
        assertThat(onFirst.terms()).containsExactly(first.leadership().orElseThrow().term());
        assertThat(onSecond.terms()).isEmpty();
        assertThat(CurrentLeadership.get()).isEmpty();
    }

    @Test
    void nothingRunsOnceTheLocalDeadlineHasPassedEvenBeforeTheElectionNoticed() {
        Job onFirst = proxied(first);
        // The clock moves past the deadline; no renewal ran (the scheduler was not driven).
        clock.advance(first.leadership().orElseThrow().remaining());
        onFirst.run();
        assertThat(onFirst.terms()).isEmpty();
    }

    @Test
    void theNextLeaderRunsAfterAHandOver() {
        Job onFirst = proxied(first);
        Job onSecond = proxied(second);
        first.stepDown();
        scheduler.runUntilIdle();
        onFirst.run();
        onSecond.run();
        assertThat(second.isLeader()).isTrue();
        assertThat(onFirst.terms()).isEmpty();
        assertThat(onSecond.terms()).containsExactly(second.leadership().orElseThrow().term());
    }

    @Test
    void aLeaderOnlyMethodMustReturnVoid() {
        assertThatThrownBy(() -> new LeaderOnlyPostProcessor(() -> first)
                .postProcessAfterInitialization(new Counting(), "counting"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@LeaderOnly method Counting.count of bean 'counting' must return void");
    }

    @Test
    void currentLeadershipOutsideALeaderOnlyMethodSaysWhereToCallIt() {
        assertThatThrownBy(CurrentLeadership::require).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from a @LeaderOnly method");
    }

    private Job proxied(StoreElection election) {
        return (Job) new LeaderOnlyPostProcessor(() -> election).postProcessAfterInitialization(new Job(), "job");
    }

    private StoreElection election(String id) {
        return Baton.election(store).group("jobs").node(NodeInfo.of(id, id)).config(ElectionConfig.fast())
                .clock(clock).scheduler(scheduler).eventExecutor(Runnable::run).random(new java.util.Random(1))
                .build();
    }

    /** A scheduled job as an application writes it. */
    public static class Job {
        final List<Long> terms = new ArrayList<>();

        @LeaderOnly
        public void run() {
            terms.add(CurrentLeadership.require().term());
        }

        /** Read through the proxy (its own fields are not the target's). */
        public List<Long> terms() {
            return terms;
        }
    }

    /** A leader-only method with a result, which cannot be. */
    public static class Counting {
        @LeaderOnly
        public int count() {
            return 1;
        }
    }
}
