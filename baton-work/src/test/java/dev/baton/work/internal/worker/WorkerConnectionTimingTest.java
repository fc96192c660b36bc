package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerTransport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The connection's state machine and timings on a fake clock, with a transport the test drives by hand. */
class WorkerConnectionTimingTest {

    private static final String REPORT = "{\"type\":\"stateReport\",\"cpuUsage\":1,\"memoryUsage\":2,"
            + "\"cameraConnections\":[]}";

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final FakeTransport transport = new FakeTransport();
    private final List<String> events = new ArrayList<>();
    private final WorkerConnectionConfig config = WorkerConnectionConfig.builder()
            .reconnectJitter(Duration.ofSeconds(2)).build();
    private final WorkerConnection connection = new WorkerConnection(URI.create("ws://w1:8000"), config, transport,
            scheduler, clock, new Random(7), new WorkerConnectionListener() {
                @Override
                public void onEvent(WorkerEvent event) {
                    events.add(event.name());
                }
            });

    @Test
    void connectsRequestsStateAndGoesOnlineOnTheFirstReport() {
        connection.start();
        scheduler.runUntilIdle();
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.CONNECTING);
        transport.completeOpen();
        scheduler.runUntilIdle();
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.CONNECTED);
        assertThat(transport.sent).containsExactly("{\"type\":\"requestState\"}");
        transport.handler.onText(REPORT);
        scheduler.runUntilIdle();
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.ONLINE);
        assertThat(events).containsExactly("worker:connecting", "worker:connected", "worker:online");
    }

    @Test
    void aWorkerWithoutReportsForTenSecondsIsOfflineAndReconnectedAfterTheDelayPlusJitter() {
        online();
        scheduler.advance(Duration.ofSeconds(9));
        transport.handler.onText(REPORT); // a report resets the deadline
        scheduler.advance(Duration.ofSeconds(9));
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.ONLINE);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.OFFLINE);
        assertThat(transport.aborted).isEqualTo(1);
        assertThat(events).endsWith("worker:disconnected", "worker:offline");

        int opens = transport.opens;
        scheduler.advance(Duration.ofSeconds(10).minusMillis(1));
        assertThat(transport.opens).isEqualTo(opens); // not before the 10 s delay
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(transport.opens).isEqualTo(opens + 1); // within delay + jitter
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);
    }

    @Test
    void failedAttemptsRetryEveryDelayPlusJitter() {
        connection.start();
        scheduler.runUntilIdle();
        for (int i = 1; i <= 3; i++) {
            transport.failOpen();
            scheduler.runUntilIdle();
            assertThat(connection.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);
            scheduler.advance(Duration.ofSeconds(12));
            assertThat(transport.opens).isEqualTo(i + 1);
        }
        assertThat(events).contains("worker:websocket_error").doesNotContain("worker:online");
    }

    @Test
    void aLostConnectionReconnectsAndRestoresHeldSubscriptions() {
        online();
        connection.subscribe(WorkerCommand.Subscribe.of("1;2", "rtsp://a", "https://m", "m", 1));
        connection.subscribe(WorkerCommand.Subscribe.of("1;3", "rtsp://b", "https://m", "m", 1));
        connection.unsubscribe("1;3");
        scheduler.runUntilIdle();
        transport.handler.onClosed(1006, "gone");
        scheduler.runUntilIdle();
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);
        assertThat(events).endsWith("worker:disconnected", "worker:offline");
        transport.sent.clear();
        scheduler.advance(Duration.ofSeconds(12));
        transport.completeOpen();
        scheduler.runUntilIdle();
        assertThat(transport.sent).containsExactly("{\"type\":\"requestState\"}");

        // A restarted worker reports nothing: what the connection holds is sent again, what it dropped is not.
        transport.handler.onText(REPORT);
        scheduler.runUntilIdle();
        assertThat(transport.sent).containsExactly("{\"type\":\"requestState\"}",
                "{\"type\":\"subscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\",\"rtspUrl\":\"rtsp://a\","
                        + "\"modelUrl\":\"https://m\",\"modelName\":\"m\",\"modelId\":1}}");
    }

    @Test
    void aWorkerThatStillRunsItsItemsAfterAReconnectIsNotSubscribedAgain() {
        online();
        connection.subscribe(WorkerCommand.Subscribe.of("1;2", "rtsp://a", "https://m", "m", 1));
        scheduler.runUntilIdle();
        transport.handler.onClosed(1006, "gone");
        scheduler.runUntilIdle();
        transport.sent.clear();
        scheduler.advance(Duration.ofSeconds(12));
        transport.completeOpen();
        connection.subscribe(WorkerCommand.Subscribe.of("1;4", "rtsp://d", "https://m", "m", 1));
        scheduler.runUntilIdle();

        transport.handler.onText(REPORT.replace("\"cameraConnections\":[]", "\"cameraConnections\":[{"
                + "\"subscriptionIdentifier\":\"1;2\",\"modelId\":1,\"modelName\":\"m\",\"online\":true}]"));
        scheduler.runUntilIdle();

        // 1;2 still runs; 1;4 was sent on this connection already (its report may predate it): neither again.
        assertThat(transport.sent).hasSize(2).first().isEqualTo("{\"type\":\"requestState\"}");
        assertThat(transport.sent.get(1)).contains("\"subscriptionIdentifier\":\"1;4\"");
        assertThat(connection.isOnline()).isTrue();
    }

    @Test
    void badMessagesAreCountedAndDroppedAndTheConnectionStaysOnline() {
        online();
        transport.handler.onText("{oops");
        transport.handler.onText("{\"type\":\"hello\"}");
        transport.handler.onOversized(2_000_000);
        scheduler.runUntilIdle();
        assertThat(connection.badMessages()).isEqualTo(3);
        assertThat(connection.badMessagesByProblem()).containsOnlyKeys(WorkerProtocolException.Problem.MALFORMED_JSON,
                WorkerProtocolException.Problem.UNKNOWN_TYPE, WorkerProtocolException.Problem.OVERSIZED);
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.ONLINE);
    }

    @Test
    void closeStopsReconnecting() {
        online();
        connection.close();
        scheduler.runUntilIdle();
        assertThat(connection.status()).isEqualTo(WorkerConnection.Status.CLOSED);
        int opens = transport.opens;
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(transport.opens).isEqualTo(opens);
    }

    private void online() {
        connection.start();
        scheduler.runUntilIdle();
        transport.completeOpen();
        scheduler.runUntilIdle();
        transport.handler.onText(REPORT);
        scheduler.runUntilIdle();
        assertThat(connection.isOnline()).isTrue();
    }

    /** Records what is sent; opens complete when the test says so. */
    static final class FakeTransport implements WorkerTransport {
        final List<String> sent = new ArrayList<>();
        CompletableFuture<Socket> pending;
        Handler handler;
        int opens;
        int aborted;

        @Override
        public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
            opens++;
            this.handler = handler;
            pending = new CompletableFuture<>();
            return pending;
        }

        void completeOpen() {
            pending.complete(new Socket() {
                @Override
                public void send(String text) {
                    sent.add(text);
                }

                @Override
                public void close() { }

                @Override
                public void abort() {
                    aborted++;
                }
            });
        }

        void failOpen() {
            pending.completeExceptionally(new java.net.ConnectException("Connection refused"));
        }
    }
}
