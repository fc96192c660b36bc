package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.store.AcquireResult;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.work.AssignmentHook;
import dev.baton.work.SessionPatchHandler;
import dev.baton.work.StoreLayout;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkItemJson;
import dev.baton.work.reconcile.LeaderEnvironment;
import dev.baton.work.reconcile.LeaderRole;
import dev.baton.work.route.BusCodec;
import dev.baton.work.source.DesiredStateSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A leader that believes it still leads after the store issued a newer term (a paused process, a partition): its
 * first write is refused by the store, it stops, and it never subscribes anything on a worker. And a leader frozen
 * past its leadership's local deadline neither writes nor commands a worker when it resumes, though nothing has
 * told it yet; and if its leadership is extended after all, it carries on.
 */
class DeposedLeaderTest {

    @Test
    void aLeaderOfAnOldTermIsRefusedByTheStoreAndSubscribesNothing() {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        InMemoryStore store = new InMemoryStore(clock);
        FakeWorkers workers = new FakeWorkers(scheduler);
        workers.add("ws://w1:8000");
        long oldTerm = granted(store.acquire("cameras", NodeInfo.of("old", "x"), Duration.ofSeconds(1)));
        clock.advance(Duration.ofSeconds(2));
        long newTerm = granted(store.acquire("cameras", NodeInfo.of("new", "x"), Duration.ofSeconds(30)));
        assertThat(newTerm).isGreaterThan(oldTerm);
        store.fencedPut("cameras", StoreLayout.DEFAULT_ITEMS_MAP, "d1;c1", "new", newTerm,
                WorkItemJson.toJson(SimCluster.item("d1;c1")));

        Leadership stale = new Leadership("cameras", "old", oldTerm, Long.MAX_VALUE, clock, term -> true);
        LeaderEnvironment env = new LeaderEnvironment(store, "cameras", "old", new NoMembers(),
                WorkClusterConfig.fast(), List.of("ws://w1:8000"), scheduler, clock, new Random(1), workers,
                Runnable::run, DesiredStateSource.NONE, AssignmentHook.NONE, SessionPatchHandler.NONE,
                new BusCodec(), e -> { }, (w, d, g) -> { });
        List<LeaderRole> stopped = new ArrayList<>();
        LeaderRole role = new LeaderRole(env, stale, stopped::add);
        scheduler.execute(role::start);
        scheduler.advance(Duration.ofSeconds(5));

        assertThat(stopped).containsExactly(role);
        assertThat(role.isActive()).isFalse();
        assertThat(workers.get("ws://w1:8000").received).noneMatch(c -> c.startsWith("subscribe"));
        assertThat(store.mapEntries("cameras", "worker:actual_subscriptions").join()).isEmpty();
    }

    @Test
    void aLeaderFrozenPastItsDeadlineWritesAndSendsNothingWhenItResumes() {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        InMemoryStore store = new InMemoryStore(clock);
        FakeWorkers workers = new FakeWorkers(scheduler);
        workers.add("ws://w1:8000");
        long term = granted(store.acquire("cameras", NodeInfo.of("frozen", "x"), Duration.ofSeconds(3)));
        Leadership leadership = new Leadership("cameras", "frozen", term, clock.nanoTime()
                + Duration.ofMillis(2500).toNanos(), clock, t -> true);
        LeaderEnvironment env = new LeaderEnvironment(store, "cameras", "frozen", new NoMembers(),
                WorkClusterConfig.fast(), List.of("ws://w1:8000"), scheduler, clock, new Random(1), workers,
                Runnable::run, DesiredStateSource.NONE, AssignmentHook.NONE, SessionPatchHandler.NONE,
                new BusCodec(), e -> { }, (w, d, g) -> { });
        LeaderRole role = new LeaderRole(env, leadership, r -> { });
        scheduler.execute(role::start);
        scheduler.advance(Duration.ofSeconds(2)); // connected, reported, settled; nothing desired yet
        assertThat(role.isActive()).isTrue();

        // An item arrives, and the process freezes before it handles the notice; it resumes after the deadline,
        // before anything has told it so (nobody else took the lease, so the store would still take its term).
        store.fencedPut("cameras", StoreLayout.DEFAULT_ITEMS_MAP, "d1;c1", "frozen", term,
                WorkItemJson.toJson(SimCluster.item("d1;c1")));
        scheduler.execute(() -> role.regenerate("an item was added"));
        clock.advance(Duration.ofSeconds(1));
        scheduler.runUntilIdle();

        assertThat(role.isActive()).isFalse();
        assertThat(workers.get("ws://w1:8000").received).noneMatch(c -> c.startsWith("subscribe"));
        assertThat(store.mapEntries("cameras", "worker:actual_subscriptions").join()).isEmpty();
    }

    @Test
    void aLeaderWhoseLeadershipIsExtendedAfterAFreezeCarriesOn() {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        InMemoryStore store = new InMemoryStore(clock);
        FakeWorkers workers = new FakeWorkers(scheduler);
        workers.add("ws://w1:8000");
        long term = granted(store.acquire("cameras", NodeInfo.of("thawed", "x"), Duration.ofSeconds(30)));
        Leadership leadership = new Leadership("cameras", "thawed", term, clock.nanoTime()
                + Duration.ofMillis(2500).toNanos(), clock, t -> true);
        List<Runnable> hookCalls = new ArrayList<>(); // the assignment hook runs when the test says
        LeaderEnvironment env = new LeaderEnvironment(store, "cameras", "thawed", new NoMembers(),
                WorkClusterConfig.fast(), List.of("ws://w1:8000"), scheduler, clock, new Random(1), workers,
                hookCalls::add, DesiredStateSource.NONE, AssignmentHook.NONE, SessionPatchHandler.NONE,
                new BusCodec(), e -> { }, (w, d, g) -> { });
        LeaderRole role = new LeaderRole(env, leadership, r -> { });
        scheduler.execute(role::start);
        scheduler.advance(Duration.ofSeconds(2));
        List.copyOf(hookCalls).forEach(Runnable::run); // the desired state's first load
        hookCalls.clear();
        scheduler.runUntilIdle();

        store.fencedPut("cameras", StoreLayout.DEFAULT_ITEMS_MAP, "d1;c1", "thawed", term,
                WorkItemJson.toJson(SimCluster.item("d1;c1")));
        scheduler.execute(() -> role.regenerate("an item was added"));
        scheduler.runUntilIdle();
        List.copyOf(hookCalls).forEach(Runnable::run); // the source's load: the item is desired, a round assigns it
        hookCalls.clear();
        scheduler.runUntilIdle();
        assertThat(hookCalls).as("the assignment hook's call for d1;c1").hasSize(1);

        clock.advance(Duration.ofSeconds(1)); // frozen past the deadline while the hook ran
        List.copyOf(hookCalls).forEach(Runnable::run);
        hookCalls.clear();
        scheduler.runUntilIdle();
        assertThat(store.mapEntries("cameras", "worker:actual_subscriptions").join()).isEmpty();

        leadership.extendTo(clock.nanoTime() + Duration.ofSeconds(30).toNanos()); // a renewal sent before the freeze
        for (int i = 0; i < 40; i++) {
            scheduler.advance(Duration.ofMillis(100));
            List.copyOf(hookCalls).forEach(Runnable::run);
            hookCalls.clear();
        }
        assertThat(role.isActive()).isTrue();
        assertThat(workers.get("ws://w1:8000").items()).containsExactly("d1;c1");
        assertThat(store.mapEntries("cameras", "worker:actual_subscriptions").join()).containsKey("d1;c1");
    }

    @Test
    void commandsWaitingForTheRateLimitAreNotSentOnceTheDeadlinePassed() {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        InMemoryStore store = new InMemoryStore(clock);
        FakeWorkers workers = new FakeWorkers(scheduler);
        workers.add("ws://w1:8000");
        long term = granted(store.acquire("cameras", NodeInfo.of("slow", "x"), Duration.ofSeconds(30)));
        for (int i = 1; i <= 4; i++) {
            store.fencedPut("cameras", StoreLayout.DEFAULT_ITEMS_MAP, "d" + i + ";c1", "slow", term,
                    WorkItemJson.toJson(SimCluster.item("d" + i + ";c1")));
        }
        Leadership leadership = new Leadership("cameras", "slow", term, clock.nanoTime()
                + Duration.ofMillis(2500).toNanos(), clock, t -> true);
        WorkClusterConfig oneASecond = WorkClusterConfig.fast().toBuilder().commandsPerSecond(1).commandBurst(1)
                .build();
        LeaderEnvironment env = new LeaderEnvironment(store, "cameras", "slow", new NoMembers(), oneASecond,
                List.of("ws://w1:8000"), scheduler, clock, new Random(1), workers, Runnable::run,
                DesiredStateSource.NONE, AssignmentHook.NONE, SessionPatchHandler.NONE, new BusCodec(), e -> { },
                (w, d, g) -> { });
        LeaderRole role = new LeaderRole(env, leadership, r -> { });
        scheduler.execute(role::start);
        scheduler.advance(Duration.ofMillis(2400)); // four assigned and recorded; at one a second, one still waits
        List<String> sent = List.copyOf(workers.get("ws://w1:8000").received);
        assertThat(sent).filteredOn(c -> c.startsWith("subscribe")).hasSizeBetween(1, 3);

        scheduler.advance(Duration.ofSeconds(3)); // past the deadline, with no election to say so
        assertThat(role.isActive()).isFalse();
        assertThat(workers.get("ws://w1:8000").received).isEqualTo(sent);
    }

    private static long granted(CompletableFuture<AcquireResult> result) {
        return ((AcquireResult.Granted) result.join()).term();
    }

    /** A registry with nobody in it. */
    private static final class NoMembers implements dev.baton.core.Membership {
        @Override
        public NodeInfo self() {
            return NodeInfo.of("old", "x").withRole(Role.LEADER);
        }

        @Override
        public CompletableFuture<Void> setMetadata(java.util.Map<String, String> metadata) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> register(NodeInfo node) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Boolean> heartbeat(String nodeId) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletableFuture<Boolean> unregister(String nodeId) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletableFuture<List<NodeInfo>> members() {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public CompletableFuture<java.util.Optional<NodeInfo>> member(String nodeId) {
            return CompletableFuture.completedFuture(java.util.Optional.empty());
        }

        @Override
        public CompletableFuture<java.util.Optional<NodeInfo>> leaderInfo() {
            return CompletableFuture.completedFuture(java.util.Optional.empty());
        }
    }
}
