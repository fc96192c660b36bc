package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.worker.sim.SimulatedWorker;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** WorkerConnection over real sockets against the testkit's SimulatedWorker, with short timings. */
class WorkerConnectionSocketTest {

    private static final WorkerConnectionConfig FAST = WorkerConnectionConfig.builder()
            .reconnectDelay(Duration.ofMillis(200)).reconnectJitter(Duration.ofMillis(50))
            .reportTimeout(Duration.ofMillis(1500)).connectTimeout(Duration.ofSeconds(2)).build();
    private static final WorkerCommand.Subscribe CAM = WorkerCommand.Subscribe.of("1;2", "rtsp://cam", "https://m",
            "cars", 42);

    private final List<WorkerEvent> events = new CopyOnWriteArrayList<>();
    private final List<WorkerMessage> messages = new CopyOnWriteArrayList<>();
    private final ExecutorScheduler scheduler = new ExecutorScheduler("worker-connection-test");
    private SimulatedWorker worker;
    private WorkerConnection connection;

    @AfterEach
    void tearDown() {
        if (connection != null) {
            connection.close();
        }
        if (worker != null) {
            worker.close();
        }
        scheduler.close();
    }

    private void connect(WorkerConnectionConfig config) {
        connection = WorkerConnection.overJdkWebSocket(worker.uri(), config, scheduler, Clock.system(), new Random(1),
                new WorkerConnectionListener() {
                    @Override
                    public void onEvent(WorkerEvent event) {
                        events.add(event);
                    }

                    @Override
                    public void onMessage(String url, WorkerMessage message) {
                        messages.add(message);
                    }
                });
        connection.start();
        await().atMost(5, TimeUnit.SECONDS).until(connection::isOnline);
    }

    private long count(Class<? extends WorkerEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }

    @Test
    void connectRequestsStateAndGoesOnlineThenSubscriptionsReachTheWorkerAndDetectionsArrive() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(300)).detectionsPerSecond(20).start();
        worker.setCpuUsage(55);
        connect(FAST);
        assertThat(worker.receivedTypes()).startsWith("requestState");
        assertThat(connection.lastReport().cpuUsage()).isEqualTo(55);

        connection.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
        await().atMost(5, TimeUnit.SECONDS).until(() -> connection.lastReport().cameraConnections().stream()
                .anyMatch(c -> c.subscriptionIdentifier().equals("1;2")));
        await().atMost(5, TimeUnit.SECONDS).until(() -> count(WorkerEvent.DetectionResult.class) >= 3);
        assertThat(messages).anySatisfy(m -> assertThat(m).isInstanceOfSatisfying(WorkerMessage.ImageDetection.class,
                d -> assertThat(d.modelId()).isEqualTo(42)));

        connection.setSessionId("1", 9L);
        await().atMost(5, TimeUnit.SECONDS).until(() -> "9".equals(worker.sessionOf("1")));
        connection.unsubscribe("1;2");
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().isEmpty());
    }

    @Test
    void aKilledWorkerGoesOfflineAndIsReconnectedWithItsSubscriptionsRestoredAfterRestart() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(300)).detectionsPerSecond(0).start();
        connect(FAST);
        connection.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));

        worker.kill();
        await().atMost(5, TimeUnit.SECONDS).until(() -> count(WorkerEvent.Offline.class) == 1);
        await().atMost(5, TimeUnit.SECONDS).until(() -> count(WorkerEvent.WebSocketError.class) >= 1);
        assertThat(connection.isOnline()).isFalse();

        worker.restart();
        await().atMost(5, TimeUnit.SECONDS).until(connection::isOnline);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
        assertThat(connection.connects()).isEqualTo(2);
    }

    @Test
    void aSilentWorkerIsOfflineAfterTheReportTimeout() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(300)).detectionsPerSecond(0).start();
        connect(FAST);
        // Replies slower than the report timeout: the socket stays open but no report arrives in time.
        worker.setReplyDelay(Duration.ofSeconds(30));
        await().atMost(5, TimeUnit.SECONDS).until(() -> count(WorkerEvent.Offline.class) == 1);
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(WorkerEvent.Offline.class,
                o -> assertThat(o.reason()).isEqualTo("no state report for 1500 ms")));
        worker.setReplyDelay(Duration.ZERO);
        await().atMost(5, TimeUnit.SECONDS).until(connection::isOnline);
    }

    @Test
    void aSlowWorkerThatStillReportsInTimeStaysOnline() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(200)).detectionsPerSecond(0).start();
        connect(FAST);
        worker.setReplyDelay(Duration.ofMillis(500));
        connection.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> connection.lastReport().cameraConnections().size() == 1);
        assertThat(count(WorkerEvent.Offline.class)).isZero();
    }

    @Test
    void garbageIsCountedAndDroppedAndTheConnectionStaysUp() {
        worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(300)).detectionsPerSecond(0).start();
        connect(FAST.toBuilder().maxMessageBytes(64 * 1024).build());
        worker.sendGarbage(SimulatedWorker.Garbage.MALFORMED_JSON);
        worker.sendGarbage(SimulatedWorker.Garbage.UNKNOWN_TYPE);
        worker.sendGarbage(SimulatedWorker.Garbage.OVERSIZED);
        await().atMost(5, TimeUnit.SECONDS).until(() -> connection.badMessages() == 3);
        assertThat(connection.badMessagesByProblem()).containsOnlyKeys(WorkerProtocolException.Problem.MALFORMED_JSON,
                WorkerProtocolException.Problem.UNKNOWN_TYPE, WorkerProtocolException.Problem.OVERSIZED);
        connection.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));
        assertThat(connection.isOnline()).isTrue();
        assertThat(connection.connects()).isEqualTo(1);
    }
}
