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
 * first write is refused by the store, it stops, and it never subscribes anything on a worker.
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
