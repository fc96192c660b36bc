package dev.baton.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.memory.InMemoryStore;
import dev.baton.core.time.Scheduler;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * An application on JDK 21+ may hand Baton virtual threads: a scheduler whose one thread is virtual, and a
 * virtual-thread-per-task executor for listeners. The election must work on them, also when a listener blocks (as
 * listeners on virtual threads are encouraged to): the blocked listener holds up only its own events, not the
 * election's renewals, not other elections, and a graceful close hands the lease on once it returns.
 *
 * <p>Baton compiles for Java 17, so the virtual-thread API is reached by reflection; on 17 the test is skipped.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadElectionTest {

    private static final ElectionConfig CONFIG = ElectionConfig.builder()
            .leaseTtl(Duration.ofSeconds(2))
            .renewInterval(Duration.ofMillis(200))
            .checkInterval(Duration.ofMillis(100))
            .electionJitter(Duration.ofMillis(20))
            .expiryJitter(Duration.ofMillis(5))
            .storeTimeout(Duration.ofMillis(500))
            .retryInterval(Duration.ofMillis(50))
            .processTtl(Duration.ofSeconds(3))
            .processHeartbeatInterval(Duration.ofMillis(500))
            .build();

    private final InMemoryStore store = new InMemoryStore();
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void anElectionWorksOnVirtualThreadsWithAListenerThatBlocks() throws Exception {
        ExecutorService listenerThreads = virtualThreadPerTaskExecutor();
        resources.add(listenerThreads::shutdownNow);

        AtomicInteger renewals = new AtomicInteger();
        Election first = election("first", listenerThreads, new ElectionMetrics() {
            @Override
            public void leaseRenewed(long latencyNanos, long marginNanos) {
                renewals.incrementAndGet();
            }
        });
        CountDownLatch unblock = new CountDownLatch(1);
        List<ElectionEvent> firstEvents = new CopyOnWriteArrayList<>();
        List<Boolean> onVirtualThreads = new CopyOnWriteArrayList<>();
        first.addListener(event -> {
            onVirtualThreads.add(isVirtual(Thread.currentThread()));
            firstEvents.add(event);
            if (event instanceof ElectionEvent.LeadershipAcquired) {
                awaitUninterruptibly(unblock);           // blocking I/O of the application, say
            }
        });
        first.start();
        await().atMost(Duration.ofSeconds(30)).until(first::isLeader);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firstEvents.stream().anyMatch(ElectionEvent.LeadershipAcquired.class::isInstance));
        long firstTerm = first.leadership().orElseThrow().term();

        // The listener is blocked; the election's own scheduler keeps renewing the lease.
        int renewalsSoFar = renewals.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> renewals.get() >= renewalsSoFar + 3);
        assertThat(first.isLeader()).isTrue();

        // Another election, on virtual threads of the same executor, hears of the leader meanwhile.
        Election second = election("second", listenerThreads, ElectionMetrics.NONE);
        List<Optional<String>> leadersSeen = new CopyOnWriteArrayList<>();
        second.addListener(event -> {
            onVirtualThreads.add(isVirtual(Thread.currentThread()));
            if (event instanceof ElectionEvent.LeaderChanged changed) {
                leadersSeen.add(changed.leader().map(LeaderInfo::nodeId));
            }
        });
        second.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> leadersSeen.contains(Optional.of("first")));
        assertThat(second.isLeader()).isFalse();

        // A graceful close, while the listener still blocks: the lease passes on once the listener returns (or at
        // the local deadline), and the next leader's term is higher.
        CompletableFuture<Void> closed = first.closeAsync();
        unblock.countDown();
        closed.get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(second::isLeader);
        assertThat(second.leadership().orElseThrow().term()).isGreaterThan(firstTerm);

        assertThat(firstEvents).filteredOn(event -> event instanceof ElectionEvent.LeadershipAcquired
                || event instanceof ElectionEvent.LeadershipLost)
                .extracting(event -> event.getClass().getSimpleName())
                .containsExactly("LeadershipAcquired", "LeadershipLost");
        assertThat(onVirtualThreads).isNotEmpty().containsOnly(true);
    }

    private Election election(String nodeId, ExecutorService listenerThreads, ElectionMetrics metrics) {
        VirtualThreadScheduler scheduler = new VirtualThreadScheduler();
        resources.add(scheduler);
        StoreElection election = Baton.election(store)
                .group("virtual")
                .node(NodeInfo.of(nodeId, "test"))
                .config(CONFIG)
                .scheduler(scheduler)
                .eventExecutor(listenerThreads)
                .metrics(metrics)
                .releaseOnShutdown(false)
                .build();
        resources.add(election::close);
        return election;
    }

    /** A {@link Scheduler} whose one thread is virtual: a single-thread scheduled executor on a virtual factory. */
    private static final class VirtualThreadScheduler implements Scheduler, AutoCloseable {
        private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
                virtualThreadFactory());
        private final ThreadLocal<Boolean> running = ThreadLocal.withInitial(() -> false);

        @Override
        public void execute(Runnable task) {
            executor.execute(() -> run(task));
        }

        @Override
        public Cancellable schedule(Duration delay, Runnable task) {
            ScheduledFuture<?> future = executor.schedule(() -> run(task), delay.toNanos(), TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        }

        @Override
        public boolean runsTaskOnThisThread() {
            return running.get();
        }

        private void run(Runnable task) {
            running.set(true);
            try {
                task.run();
            } finally {
                running.set(false);
            }
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static ExecutorService virtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    private static ThreadFactory virtualThreadFactory() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Method factory = Class.forName("java.lang.Thread$Builder").getMethod("factory");
            return (ThreadFactory) factory.invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("virtual threads need JDK 21+", e);
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("virtual threads need JDK 21+", e);
        }
    }
}
