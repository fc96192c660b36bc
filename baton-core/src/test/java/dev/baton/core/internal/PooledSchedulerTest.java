package dev.baton.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shared-thread scheduler keeps each instance a serial queue, whichever shared thread runs it. */
class PooledSchedulerTest {

    private static final long WAIT_SECONDS = 10;

    @Test
    void tasksRunInOrderAndNeverTwoAtOnce() throws Exception {
        PooledScheduler scheduler = new PooledScheduler();
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicInteger running = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        int tasks = 2_000;
        Thread[] submitters = new Thread[2];
        for (int s = 0; s < submitters.length; s++) {
            int submitter = s;
            submitters[s] = new Thread(() -> {
                for (int i = 0; i < tasks / 2; i++) {
                    int value = submitter * tasks + i;
                    scheduler.execute(() -> {
                        if (running.incrementAndGet() != 1) {
                            overlapped.set(true);
                        }
                        order.add(value);
                        running.decrementAndGet();
                    });
                }
            });
        }
        for (Thread submitter : submitters) {
            submitter.start();
        }
        for (Thread submitter : submitters) {
            submitter.join();
        }
        scheduler.execute(done::countDown);

        assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(overlapped).isFalse();
        assertThat(order).hasSize(tasks);
        for (int s = 0; s < submitters.length; s++) {
            int from = s * tasks;
            assertThat(order.stream().filter(v -> v >= from && v < from + tasks / 2).toList())
                    .as("submitter %d's tasks in submission order", s).isSorted();
        }
    }

    @Test
    void manyQueuesOnTwoThreadsEachRunInOrderAndNeverTwoAtOnce() throws Exception {
        ThreadPoolExecutor twoThreads = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
        try {
            int queues = 200;
            int tasksEach = 50;
            Set<Thread> threadsUsed = ConcurrentHashMap.newKeySet();
            AtomicBoolean overlapped = new AtomicBoolean();
            List<List<Integer>> orders = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(queues);
            for (int q = 0; q < queues; q++) {
                PooledScheduler queue = new PooledScheduler(twoThreads);
                List<Integer> order = new CopyOnWriteArrayList<>();
                orders.add(order);
                AtomicInteger running = new AtomicInteger();
                for (int i = 0; i < tasksEach; i++) {
                    int value = i;
                    queue.execute(() -> {
                        threadsUsed.add(Thread.currentThread());
                        if (running.incrementAndGet() != 1 || !queue.runsTaskOnThisThread()) {
                            overlapped.set(true);
                        }
                        order.add(value);
                        running.decrementAndGet();
                    });
                }
                queue.execute(done::countDown);
            }

            assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(overlapped).isFalse();
            assertThat(threadsUsed).hasSizeLessThanOrEqualTo(2);
            for (List<Integer> order : orders) {
                assertThat(order).hasSize(tasksEach).isSorted();
            }
        } finally {
            twoThreads.shutdownNow();
        }
    }

    @Test
    void aBusyQueueLetsAnotherRunBetweenItsTurns() throws Exception {
        ThreadPoolExecutor oneThread = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
        try {
            PooledScheduler busy = new PooledScheduler(oneThread);
            PooledScheduler other = new PooledScheduler(oneThread);
            CountDownLatch hold = new CountDownLatch(1);
            CountDownLatch otherRan = new CountDownLatch(1);
            AtomicInteger busyRanBeforeOther = new AtomicInteger(-1);
            AtomicInteger busyRan = new AtomicInteger();
            // Hold the only thread so that both queues are filled before either runs.
            oneThread.execute(() -> {
                try {
                    hold.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            int busyTasks = PooledScheduler.TASKS_PER_TURN * 3;
            for (int i = 0; i < busyTasks; i++) {
                busy.execute(busyRan::incrementAndGet);
            }
            other.execute(() -> {
                busyRanBeforeOther.set(busyRan.get());
                otherRan.countDown();
            });
            hold.countDown();

            assertThat(otherRan.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(busyRanBeforeOther.get()).isEqualTo(PooledScheduler.TASKS_PER_TURN);
        } finally {
            oneThread.shutdownNow();
        }
    }

    @Test
    void aTaskKnowsItRunsOnItsOwnSchedulerOnly() throws Exception {
        PooledScheduler mine = new PooledScheduler();
        PooledScheduler other = new PooledScheduler();
        CountDownLatch done = new CountDownLatch(1);
        boolean[] seen = new boolean[2];
        mine.execute(() -> {
            seen[0] = mine.runsTaskOnThisThread();
            seen[1] = other.runsTaskOnThisThread();
            done.countDown();
        });

        assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(seen[0]).isTrue();
        assertThat(seen[1]).isFalse();
        assertThat(mine.runsTaskOnThisThread()).as("on the test thread").isFalse();
    }

    @Test
    void aCancelledTimerNeverRunsAndOthersDo() throws Exception {
        PooledScheduler scheduler = new PooledScheduler();
        AtomicBoolean cancelledRan = new AtomicBoolean();
        CountDownLatch later = new CountDownLatch(1);
        Scheduler.Cancellable cancelled = scheduler.schedule(Duration.ofMillis(20), () -> cancelledRan.set(true));
        cancelled.cancel();
        scheduler.schedule(Duration.ofMillis(40), later::countDown);

        assertThat(later.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        CountDownLatch drained = new CountDownLatch(1);
        scheduler.execute(drained::countDown);
        assertThat(drained.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRan).isFalse();
    }

    @Test
    void aBlockedQueueDoesNotHoldUpAnother() throws Exception {
        PooledScheduler blocked = new PooledScheduler();
        PooledScheduler free = new PooledScheduler();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(1);
        blocked.execute(() -> {
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        free.execute(ran::countDown);

        try {
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
        }
    }

    @Test
    void closingDropsPendingAndLaterTasks() throws Exception {
        PooledScheduler scheduler = new PooledScheduler();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean droppedRan = new AtomicBoolean();
        scheduler.execute(() -> {
            holding.countDown();
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(holding.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        scheduler.execute(() -> droppedRan.set(true));

        scheduler.close();
        release.countDown();
        scheduler.execute(() -> droppedRan.set(true));
        assertThat(scheduler.schedule(Duration.ZERO, () -> droppedRan.set(true))).isSameAs(Scheduler.Cancellable.NONE);

        CountDownLatch other = new CountDownLatch(1);
        new PooledScheduler().execute(other::countDown);
        assertThat(other.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(droppedRan).isFalse();
    }

    @Test
    void listenersThatBlockHoldUpNoElectionQueue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(PooledScheduler.SHARED_THREADS + 1);
        List<PooledScheduler> listeners = new ArrayList<>();
        try {
            // More listener queues blocked at once than the elections' bounded pool has threads.
            for (int i = 0; i <= PooledScheduler.SHARED_THREADS; i++) {
                PooledScheduler listener = PooledScheduler.forListeners();
                listeners.add(listener);
                listener.execute(() -> {
                    blocked.countDown();
                    try {
                        release.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertThat(blocked.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("every blocking listener runs").isTrue();

            CountDownLatch ran = new CountDownLatch(1);
            new PooledScheduler().execute(ran::countDown);
            assertThat(ran.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("an election's task runs meanwhile").isTrue();
        } finally {
            release.countDown();
            listeners.forEach(PooledScheduler::close);
        }
    }
}
