package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerEvent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.worker.sim.SimulatedWorker;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A flooding {@link SimulatedWorker} against a real JDK WebSocket connection whose scheduler is held up. */
class WorkerConnectionFloodSocketTest {

    private final List<WorkerEvent> events = new CopyOnWriteArrayList<>();
    private final ExecutorScheduler scheduler = new ExecutorScheduler("worker-flood-test");
    private final CountDownLatch consumerBlocked = new CountDownLatch(1);
    private SimulatedWorker worker;
    private WorkerConnection connection;

    @AfterEach
    void tearDown() {
        consumerBlocked.countDown();
        if (connection != null) {
            connection.close();
        }
        if (worker != null) {
            worker.close();
        }
        scheduler.close();
    }

    @Test
    void aSlowConsumerStopsTheReadingAndAFloodingWorkerIsDisconnected() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(200)).start();
        WorkerConnectionConfig config = WorkerConnectionConfig.builder().reconnectDelay(Duration.ofSeconds(30))
                .reportTimeout(Duration.ofSeconds(30)).maxQueuedMessages(8).messagesPerSecond(200).messageBurst(500)
                .badMessagesPerSecond(1_000).badMessageBurst(1_000).build();
        connection = WorkerConnection.overJdkWebSocket(worker.uri(), config, scheduler, Clock.system(), new Random(1),
                new WorkerConnectionListener() {
                    @Override
                    public void onEvent(WorkerEvent event) {
                        events.add(event);
                    }
                });
        connection.start();
        await().atMost(5, TimeUnit.SECONDS).until(connection::isOnline);

        // The consumer stops: the scheduler is busy until the latch opens.
        scheduler.execute(() -> {
            try {
                consumerBlocked.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.flood(50_000); // about 10 MB, more than the loopback socket buffers hold

        // Reading stops at the window: the rest waits in TCP and in the worker, not in the backend's heap.
        await().atMost(5, TimeUnit.SECONDS).until(() -> connection.queuedMessages() >= 8);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> connection.queuedMessages() <= 8);
        assertThat(connection.peakQueuedMessages()).isLessThanOrEqualTo(8);

        // The consumer resumes: the worker is over its budget (500 at once, 200 a second) and is disconnected.
        consumerBlocked.countDown();
        await().atMost(10, TimeUnit.SECONDS).until(() -> connection.floodDisconnects() == 1);
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(WorkerEvent.WebSocketError.class,
                error -> assertThat(error.error()).startsWith("flooding: more than 200 messages a second")));
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(WorkerEvent.Offline.class));
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);
        assertThat(connection.peakQueuedMessages()).isLessThanOrEqualTo(8);
    }
}
