package dev.baton.work.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.Leadership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.spi.LeaseDeadline;
import dev.baton.core.store.AcquireResult;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.work.AssignmentHook;
import dev.baton.work.SessionPatchHandler;
import dev.baton.work.StoreLayout;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkItemJson;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.internal.reconcile.ClusterStore;
import dev.baton.work.internal.reconcile.LeaderRole;
import dev.baton.work.internal.reconcile.LeaderThreads;
import dev.baton.work.internal.reconcile.LocalOutput;
import dev.baton.work.internal.reconcile.UserHooks;
import dev.baton.work.internal.reconcile.WorkerFleet;
import dev.baton.work.internal.route.BusCodec;
import dev.baton.work.source.DesiredStateSource;
import dev.baton.work.internal.route.BusMessage;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.worker.WorkerTransport;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A leader that believes it still leads after the store issued a newer term (a paused process, a partition): its
 * first write is refused by the store, it stops, and it never subscribes anything on a worker. And a leader frozen
 * past its leadership's local deadline neither writes nor commands a worker when it resumes, though nothing has
 * told it yet; and if its leadership is extended after all, it carries on. And a command a leader let go just before
 * it was deposed, which reaches a worker after its successor's, is refused there: it carries the older term.
 */
class DeposedLeaderTest {

    private static final String WORKER = "ws://w1:8000";
    private static final String OTHER = "ws://w2:8000";

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final InMemoryStore store = new InMemoryStore(clock);
    private final FakeWorkers workers = new FakeWorkers(scheduler);

    DeposedLeaderTest() {
        workers.add(WORKER);
    }

    /** A leader role of {@code leadership} for the one worker; blocking calls run on {@code sourceExecutor}. */
    private LeaderRole role(Leadership leadership, WorkClusterConfig config, Executor sourceExecutor,
            Consumer<LeaderRole> onStopped) {
        return role(leadership, config, sourceExecutor, onStopped, List.of(WORKER), workers);
    }

    /** A leader role of {@code leadership} for {@code urls}, reached through {@code transport}. */
    private LeaderRole role(Leadership leadership, WorkClusterConfig config, Executor sourceExecutor,
            Consumer<LeaderRole> onStopped, List<String> urls, WorkerTransport transport) {
        LocalOutput local = new LocalOutput() {
            @Override
            public void event(WorkClusterEvent event) { }

            @Override
            public void deliver(String workerUrl, WorkerMessage.ImageDetection detection, boolean global,
                                Runnable done) {
                done.run();
            }
        };
        LeaderRole role = new LeaderRole(new ClusterStore(store, "cameras", leadership.nodeId(), new BusCodec()),
                config, new NoMembers(), new LeaderThreads(scheduler, clock, new Random(1), sourceExecutor),
                new WorkerFleet(urls, transport),
                new UserHooks(DesiredStateSource.NONE, AssignmentHook.NONE, SessionPatchHandler.NONE), local,
                leadership, onStopped);
        scheduler.execute(role::start);
        return role;
    }

    /** Leadership of {@code term} for {@code node}, valid for 2.5 s from now unless extended. */
    private Leadership leadership(String node, long term) {
        return new Leadership("cameras", node, term, clock.nanoTime() + Duration.ofMillis(2500).toNanos(), clock,
                t -> true);
    }

    private void desire(String item, String node, long term) {
        store.maps().fencedPut("cameras", StoreLayout.DEFAULT_ITEMS_MAP, item, node, term,
                WorkItemJson.toJson(SimCluster.item(item)));
    }

    private List<String> received() {
        return workers.get(WORKER).received;
    }

    private boolean nothingRecorded() {
        return store.maps().mapEntries("cameras", "worker:actual_subscriptions").join().isEmpty();
    }

    @Test
    void aLeaderOfAnOldTermIsRefusedByTheStoreAndSubscribesNothing() {
        long oldTerm = granted(store.leases().acquire("cameras", NodeInfo.of("old", "x"), Duration.ofSeconds(1)));
        clock.advance(Duration.ofSeconds(2));
        long newTerm = granted(store.leases().acquire("cameras", NodeInfo.of("new", "x"), Duration.ofSeconds(30)));
        assertThat(newTerm).isGreaterThan(oldTerm);
        desire("d1;c1", "new", newTerm);

        Leadership stale = new Leadership("cameras", "old", oldTerm, Long.MAX_VALUE, clock, term -> true);
        List<LeaderRole> stopped = new ArrayList<>();
        LeaderRole role = role(stale, WorkClusterConfig.fast(), Runnable::run, stopped::add);
        scheduler.advance(Duration.ofSeconds(5));

        assertThat(stopped).containsExactly(role);
        assertThat(role.isActive()).isFalse();
        assertThat(received()).noneMatch(c -> c.startsWith("subscribe"));
        assertThat(nothingRecorded()).isTrue();
    }

    @Test
    void aLeaderFrozenPastItsDeadlineWritesAndSendsNothingWhenItResumes() {
        long term = granted(store.leases().acquire("cameras", NodeInfo.of("frozen", "x"), Duration.ofSeconds(3)));
        LeaderRole role = role(leadership("frozen", term), WorkClusterConfig.fast(), Runnable::run, r -> { });
        scheduler.advance(Duration.ofSeconds(2)); // connected, reported, settled; nothing desired yet
        assertThat(role.isActive()).isTrue();

        // An item arrives, and the process freezes before it handles the notice; it resumes after the deadline,
        // before anything has told it so (nobody else took the lease, so the store would still take its term).
        desire("d1;c1", "frozen", term);
        scheduler.execute(() -> role.regenerate("an item was added"));
        clock.advance(Duration.ofSeconds(1));
        scheduler.runUntilIdle();

        assertThat(role.isActive()).isFalse();
        assertThat(received()).noneMatch(c -> c.startsWith("subscribe"));
        assertThat(nothingRecorded()).isTrue();
    }

    @Test
    void aLeaderWhoseLeadershipIsExtendedAfterAFreezeCarriesOn() {
        long term = granted(store.leases().acquire("cameras", NodeInfo.of("thawed", "x"), Duration.ofSeconds(30)));
        LeaseDeadline deadline = new LeaseDeadline(clock.nanoTime() + Duration.ofMillis(2500).toNanos());
        Leadership leadership = deadline.leadership("cameras", "thawed", term, clock, t -> true);
        List<Runnable> hookCalls = new ArrayList<>(); // the source and the assignment hook run when the test says
        Runnable runHookCalls = () -> {
            List.copyOf(hookCalls).forEach(Runnable::run);
            hookCalls.clear();
            scheduler.runUntilIdle();
        };
        LeaderRole role = role(leadership, WorkClusterConfig.fast(), hookCalls::add, r -> { });
        scheduler.advance(Duration.ofSeconds(2));
        runHookCalls.run(); // the desired state's first load

        desire("d1;c1", "thawed", term);
        scheduler.execute(() -> role.regenerate("an item was added"));
        scheduler.runUntilIdle();
        runHookCalls.run(); // the source's load: the item is desired, a round assigns it
        assertThat(hookCalls).as("the assignment hook's call for d1;c1").hasSize(1);

        clock.advance(Duration.ofSeconds(1)); // frozen past the deadline while the hook ran
        runHookCalls.run();
        assertThat(nothingRecorded()).isTrue();

        deadline.extendTo(clock.nanoTime() + Duration.ofSeconds(30).toNanos()); // a renewal sent before the freeze
        for (int i = 0; i < 40; i++) {
            scheduler.advance(Duration.ofMillis(100));
            runHookCalls.run();
        }
        assertThat(role.isActive()).isTrue();
        assertThat(workers.get(WORKER).items()).containsExactly("d1;c1");
        assertThat(nothingRecorded()).isFalse();
    }

    @Test
    void commandsWaitingForTheRateLimitAreNotSentOnceTheDeadlinePassed() {
        long term = granted(store.leases().acquire("cameras", NodeInfo.of("slow", "x"), Duration.ofSeconds(30)));
        for (int i = 1; i <= 4; i++) {
            desire("d" + i + ";c1", "slow", term);
        }
        WorkClusterConfig oneASecond = WorkClusterConfig.fast().toBuilder().commandsPerSecond(1).commandBurst(1)
                .build();
        LeaderRole role = role(leadership("slow", term), oneASecond, Runnable::run, r -> { });
        scheduler.advance(Duration.ofMillis(2400)); // four assigned and recorded; at one a second, one still waits
        List<String> sent = List.copyOf(received());
        assertThat(sent).filteredOn(c -> c.startsWith("subscribe")).hasSizeBetween(1, 3);

        scheduler.advance(Duration.ofSeconds(3)); // past the deadline, with no election to say so
        assertThat(role.isActive()).isFalse();
        assertThat(received()).isEqualTo(sent);
    }

    @Test
    void aSubscribeADeposedLeaderSentBeforeItsSuccessorTookOverIsRefusedByTheWorker() {
        workers.add(OTHER);
        FreezableTransport frozen = new FreezableTransport(workers);
        long oldTerm = granted(store.leases().acquire("cameras", NodeInfo.of("old", "x"), Duration.ofSeconds(3)));
        LeaderRole old = role(leadership("old", oldTerm), WorkClusterConfig.fast(), Runnable::run, r -> { },
                List.of(WORKER, OTHER), frozen);
        scheduler.advance(Duration.ofSeconds(2)); // connected to both, reported, settled; nothing desired yet

        // The old leader records d1;c1 on a worker under its term, finds its leadership valid and hands the subscribe
        // to the socket; then its process freezes before the text is written.
        frozen.freeze();
        desire("d1;c1", "old", oldTerm);
        scheduler.execute(() -> old.regenerate("an item was added"));
        scheduler.runUntilIdle();
        assertThat(frozen.held()).singleElement().satisfies(h -> assertThat(h.text()).contains("\"subscribe\""));
        String first = frozen.held().get(0).worker();
        String second = first.equals(WORKER) ? OTHER : WORKER;

        // Its lease runs out; a successor leads term 2, an operator drains the first worker, and the successor moves
        // the item to the second one and stops it on the first.
        scheduler.advance(Duration.ofSeconds(2));
        long newTerm = granted(store.leases().acquire("cameras", NodeInfo.of("new", "x"), Duration.ofSeconds(30)));
        LeaderRole successor = role(new Leadership("cameras", "new", newTerm, Long.MAX_VALUE, clock, t -> true),
                WorkClusterConfig.fast(), Runnable::run, r -> { }, List.of(WORKER, OTHER), workers);
        scheduler.runUntilIdle();
        successor.handle(new BusMessage.DrainWorker("cameras", "drain-1", "ops", first, true, "maintenance"));
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(workers.placements()).containsExactly(Map.entry("d1;c1", List.of(second)));

        // The old process thaws and its subscribe, of term 1, reaches the first worker after the successor's commands.
        frozen.thaw();
        scheduler.runUntilIdle();

        assertThat(workers.get(first).received).endsWith("subscribe d1;c1");
        assertThat(workers.placements()).as("the item runs on one worker only")
                .containsExactly(Map.entry("d1;c1", List.of(second)));
        assertThat(workers.get(first).refused).containsExactly("subscribe d1;c1 of term " + oldTerm + ", newest "
                + newTerm);
    }

    private static long granted(CompletableFuture<AcquireResult> result) {
        return ((AcquireResult.Granted) result.join()).term();
    }

    /**
     * The workers' transport with a switch: once frozen, every text a socket is asked to send is held (with the
     * worker it was for) until thawed, as a process frozen after its last check and before the write.
     */
    private static final class FreezableTransport implements WorkerTransport {
        record Held(String worker, String text, Runnable write) { }

        private final WorkerTransport delegate;
        private final List<Held> held = new ArrayList<>();
        private boolean frozen;

        FreezableTransport(WorkerTransport delegate) {
            this.delegate = delegate;
        }

        void freeze() {
            frozen = true;
        }

        /** Writes what was held, in order, and sends at once from now on. */
        void thaw() {
            frozen = false;
            held.forEach(h -> h.write().run());
            held.clear();
        }

        List<Held> held() {
            return List.copyOf(held);
        }

        @Override
        public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
            return delegate.open(uri, timeout, handler).thenApply(socket -> new Socket() {
                @Override
                public void send(String text) {
                    if (frozen) {
                        held.add(new Held(uri.toString(), text, () -> socket.send(text)));
                    } else {
                        socket.send(text);
                    }
                }

                @Override
                public void request(long n) {
                    socket.request(n);
                }

                @Override
                public void close() {
                    socket.close();
                }

                @Override
                public void abort() {
                    socket.abort();
                }
            });
        }
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
