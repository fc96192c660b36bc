package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerEvent;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.worker.WorkerTransport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Backpressure and the message budget of a {@link WorkerConnection} on a fake clock, over a transport that, like TCP
 * under the JDK client, hands a message over only against demand and keeps the rest on the worker's side.
 */
class WorkerConnectionBackpressureTest {

    private static final String REPORT = "{\"type\":\"stateReport\",\"cpuUsage\":1,\"memoryUsage\":2,"
            + "\"cameraConnections\":[]}";
    private static final String DETECTION = "{\"type\":\"imageDetection\",\"subscriptionIdentifier\":\"1;2\","
            + "\"timestamp\":\"2026-01-01T00:00:00Z\",\"data\":{\"detection\":{},\"modelId\":1,\"modelName\":\"m\"}}";

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final List<WorkerEvent> events = new ArrayList<>();
    private final List<WorkerMessage> messages = new ArrayList<>();
    private final List<Long> aheadWhenHandled = new ArrayList<>();

    private WorkerConnection connection(WorkerConnectionConfig config, FlowTransport transport, InboundLimit limit) {
        return new WorkerConnection(URI.create("ws://w1:8000"), config, transport, scheduler, clock, new Random(7),
                new WorkerConnectionListener() {
                    @Override
                    public void onEvent(WorkerEvent event) {
                        events.add(event);
                    }

                    @Override
                    public void onMessage(String url, WorkerMessage message) {
                        if (transport.socket != null) {
                            aheadWhenHandled.add(transport.socket.requested - messages.size());
                        }
                        messages.add(message);
                    }
                }, limit);
    }

    private static WorkerConnectionConfig.Builder config() {
        return WorkerConnectionConfig.builder().reconnectDelay(Duration.ofSeconds(1)).reconnectJitter(Duration.ZERO)
                .reportTimeout(Duration.ofMinutes(10));
    }

    private WorkerConnection online(WorkerConnectionConfig config, FlowTransport transport, InboundLimit limit) {
        WorkerConnection c = connection(config, transport, limit);
        c.start();
        scheduler.runUntilIdle();
        transport.socket.fromWorker(REPORT);
        scheduler.runUntilIdle();
        assertThat(c.isOnline()).isTrue();
        return c;
    }

    @Test
    void theSocketIsAskedForNoMoreThanTheWindowAheadOfWhatWasHandled() {
        FlowTransport transport = new FlowTransport();
        WorkerConnection c = online(config().maxQueuedMessages(4).build(), transport, InboundLimit.unbounded());
        FlowSocket socket = transport.socket;
        assertThat(socket.requested).isEqualTo(5); // 4 at the open, 1 more after the report was handled

        for (int i = 0; i < 100; i++) {
            socket.fromWorker(DETECTION);
        }
        // The scheduler has not run: four messages wait for it, the other 96 stay with the worker.
        assertThat(c.queuedMessages()).isEqualTo(4);
        assertThat(socket.backlog).hasSize(96);
        assertThat(socket.requested).isEqualTo(5);

        scheduler.runUntilIdle();
        assertThat(messages).hasSize(101);
        // When each message was handled, the socket had been asked for at most 4 beyond the ones handled before it.
        assertThat(aheadWhenHandled).isNotEmpty().allSatisfy(ahead -> assertThat(ahead).isLessThanOrEqualTo(4));
        assertThat(socket.requested).isEqualTo(105);
        assertThat(socket.backlog).isEmpty();
        assertThat(c.peakQueuedMessages()).isEqualTo(4);
        assertThat(c.isOnline()).isTrue();
    }

    @Test
    void theSharedLimitBoundsEveryConnectionTogetherAndWakesTheWaitingOnes() {
        InboundLimit limit = new InboundLimit(6);
        FlowTransport t1 = new FlowTransport();
        FlowTransport t2 = new FlowTransport();
        WorkerConnectionConfig window4 = config().maxQueuedMessages(4).build();
        WorkerConnection c1 = online(window4, t1, limit);
        WorkerConnection c2 = online(window4, t2, limit);
        assertThat(limit.used()).isEqualTo(6); // 4 for the first, only 2 left for the second

        for (int i = 0; i < 50; i++) {
            t1.socket.fromWorker(DETECTION);
            t2.socket.fromWorker(DETECTION);
        }
        assertThat(c1.queuedMessages() + c2.queuedMessages()).isEqualTo(6);
        for (int i = 0; i < 6; i++) {
            limit.hold(); // results being published downstream, as many as the bound: reading must stop
        }
        scheduler.runUntilIdle();
        assertThat(c1.queuedMessages() + c2.queuedMessages()).isZero();
        assertThat(messages).hasSize(8); // the two reports and the six read before the holds, nothing after
        assertThat(t1.socket.backlog.size() + t2.socket.backlog.size()).isEqualTo(94);
        assertThat(limit.peak()).isEqualTo(12);

        limit.release(6);
        scheduler.runUntilIdle();
        assertThat(messages).hasSize(102); // two reports and 100 results: the waiting connections were woken
        assertThat(t1.socket.backlog).isEmpty();
        assertThat(t2.socket.backlog).isEmpty();
    }

    @Test
    void aWorkerOverItsMessageBudgetIsDisconnectedAsFloodingAndReconnectsAfterTheDelay() {
        FlowTransport transport = new FlowTransport();
        WorkerConnectionConfig config = config().messagesPerSecond(100).messageBurst(200).build();
        WorkerConnection c = online(config, transport, InboundLimit.unbounded());
        FlowSocket flooded = transport.socket;
        for (int i = 0; i < 1_000; i++) {
            flooded.fromWorker(DETECTION);
        }
        scheduler.runUntilIdle();

        assertThat(c.floodDisconnects()).isEqualTo(1);
        assertThat(flooded.aborted).isTrue();
        assertThat(messages).hasSizeBetween(199, 201); // the report and the burst, nothing after
        assertThat(events).filteredOn(e -> e instanceof WorkerEvent.WebSocketError).singleElement()
                .satisfies(e -> assertThat(((WorkerEvent.WebSocketError) e).error())
                        .startsWith("flooding: more than 100 messages a second (burst 200)"));
        assertThat(events).map(WorkerEvent::name).endsWith("worker:websocket_error", "worker:disconnected",
                "worker:offline");
        assertThat(c.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);

        scheduler.advance(Duration.ofSeconds(1));
        assertThat(transport.opens).isEqualTo(2);
        transport.socket.fromWorker(REPORT);
        scheduler.runUntilIdle();
        assertThat(c.isOnline()).isTrue(); // a fresh budget on the new connection
    }

    @Test
    void aWorkerWithinItsBudgetStaysOnline() {
        FlowTransport transport = new FlowTransport();
        WorkerConnectionConfig config = config().messagesPerSecond(100).messageBurst(200).build();
        WorkerConnection c = online(config, transport, InboundLimit.unbounded());
        for (int i = 0; i < 1_000; i++) { // 10 s at 100 a second, plus one burst of 150
            transport.socket.fromWorker(DETECTION);
            if (i == 500) {
                for (int j = 0; j < 150; j++) {
                    transport.socket.fromWorker(DETECTION);
                }
            }
            scheduler.advance(Duration.ofMillis(10));
        }
        assertThat(c.floodDisconnects()).isZero();
        assertThat(c.isOnline()).isTrue();
        assertThat(messages).hasSize(1_151);
    }

    @Test
    void garbageBeyondTheBadMessageBudgetDisconnectsAsFlooding() {
        FlowTransport transport = new FlowTransport();
        WorkerConnectionConfig config = config().badMessagesPerSecond(1).badMessageBurst(5).build();
        WorkerConnection c = online(config, transport, InboundLimit.unbounded());
        for (int i = 0; i < 5; i++) {
            transport.socket.fromWorker("{oops");
        }
        scheduler.runUntilIdle();
        assertThat(c.isOnline()).isTrue(); // within the budget: dropped, counted
        scheduler.advance(Duration.ofSeconds(2));
        transport.socket.fromWorker("{oops"); // two more came back
        transport.socket.fromWorker("{oops");
        scheduler.runUntilIdle();
        assertThat(c.isOnline()).isTrue();
        transport.socket.fromWorker("{oops");
        scheduler.runUntilIdle();

        assertThat(c.floodDisconnects()).isEqualTo(1);
        assertThat(c.status()).isEqualTo(WorkerConnection.Status.RECONNECTING);
        assertThat(c.badMessages()).isEqualTo(8);
        assertThat(events).filteredOn(e -> e instanceof WorkerEvent.WebSocketError).singleElement()
                .satisfies(e -> assertThat(((WorkerEvent.WebSocketError) e).error())
                        .startsWith("flooding: more than 1 bad messages a second (burst 5)"));
    }

    @Test
    void budgetsAndBoundsAreValidatedByName() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config().maxQueuedMessages(0).build())
                .hasMessage("maxQueuedMessages must be at least 1, was 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config().messagesPerSecond(0).build())
                .hasMessage("messagesPerSecond must be positive and finite, was 0.0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config().badMessageBurst(0).build())
                .hasMessage("badMessageBurst must be at least 1, was 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new InboundLimit(0))
                .hasMessage("max must be at least 1, was 0");
    }

    /** Opens complete at once; each socket keeps what the worker sent beyond the demand, as TCP would. */
    static final class FlowTransport implements WorkerTransport {
        FlowSocket socket;
        int opens;

        @Override
        public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
            opens++;
            socket = new FlowSocket(handler);
            return CompletableFuture.completedFuture(socket);
        }
    }

    static final class FlowSocket implements WorkerTransport.Socket {
        final WorkerTransport.Handler handler;
        final Deque<String> backlog = new ArrayDeque<>();
        long requested;
        long demand;
        boolean aborted;

        FlowSocket(WorkerTransport.Handler handler) {
            this.handler = handler;
        }

        void fromWorker(String text) {
            backlog.add(text);
            pump();
        }

        private void pump() {
            while (demand > 0 && !backlog.isEmpty() && !aborted) {
                demand--;
                handler.onText(backlog.poll());
            }
        }

        @Override
        public void request(long n) {
            requested += n;
            demand += n;
            pump();
        }

        @Override
        public void send(String text) { }

        @Override
        public void close() {
            aborted = true;
        }

        @Override
        public void abort() {
            aborted = true;
        }
    }
}
