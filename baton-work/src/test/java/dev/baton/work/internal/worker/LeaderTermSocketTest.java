package dev.baton.work.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.time.Clock;
import dev.baton.core.time.ExecutorScheduler;
import dev.baton.worker.sim.SimulatedWorker;
import dev.baton.work.worker.WorkerConnectionConfig;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's side and a worker's side of {@code leaderTerm} over real sockets: connections of two leaders to one
 * {@link SimulatedWorker}, the older one's command arriving after the newer one's.
 */
class LeaderTermSocketTest {

    private static final WorkerConnectionConfig FAST = WorkerConnectionConfig.builder()
            .reconnectDelay(Duration.ofMillis(200)).reconnectJitter(Duration.ofMillis(50))
            .reportTimeout(Duration.ofMillis(1500)).connectTimeout(Duration.ofSeconds(2)).build();
    private static final WorkerCommand.Subscribe CAM = WorkerCommand.Subscribe.of("1;2", "rtsp://cam", "https://m",
            "cars", 42);

    private final ExecutorScheduler scheduler = new ExecutorScheduler("leader-term-test");
    private final SimulatedWorker worker = SimulatedWorker.builder().reportInterval(Duration.ofMillis(300))
            .detectionsPerSecond(0).start();
    private WorkerConnection deposed;
    private WorkerConnection successor;

    @AfterEach
    void tearDown() {
        for (WorkerConnection c : new WorkerConnection[] {deposed, successor}) {
            if (c != null) {
                c.close();
            }
        }
        worker.close();
        scheduler.close();
    }

    private WorkerConnection connect(long leaderTerm) {
        WorkerConnection connection = new WorkerConnection(worker.uri(), FAST,
                new JdkWebSocketTransport(FAST.maxMessageBytes()), scheduler, Clock.system(), new Random(1),
                new WorkerConnectionListener() { }, InboundLimit.unbounded(), leaderTerm);
        connection.start();
        await().atMost(5, TimeUnit.SECONDS).until(connection::isOnline);
        return connection;
    }

    @Test
    void theSimulatedWorkerRefusesADeposedLeadersSubscribeThatArrivesAfterItsSuccessorsCommands() {
        deposed = connect(5);
        deposed.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().contains("1;2"));

        successor = connect(6);
        successor.unsubscribe("1;2");
        await().atMost(5, TimeUnit.SECONDS).until(() -> worker.subscriptions().isEmpty());
        assertThat(worker.leaderTerm()).isEqualTo(6);

        deposed.subscribe(CAM);
        await().atMost(5, TimeUnit.SECONDS).until(() -> !worker.refused().isEmpty());
        assertThat(worker.refused()).singleElement().satisfies(json -> assertThat(json)
                .contains("\"type\":\"subscribe\"").contains("\"leaderTerm\":5"));
        assertThat(worker.subscriptions()).isEmpty();
    }
}
