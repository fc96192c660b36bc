package dev.baton.work.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerTransport;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A connection opened for the leader of a term writes that term on every command it sends, re-sends included. */
class WorkerConnectionLeaderTermTest {

    private static final String EMPTY_REPORT = "{\"type\":\"stateReport\",\"cpuUsage\":1,\"memoryUsage\":2,"
            + "\"cameraConnections\":[]}";
    private static final WorkerCommand.Subscribe CAM = WorkerCommand.Subscribe.of("1;2", "rtsp://a", "https://m",
            "m", 1);

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final WorkerProtocolCodec codec = new WorkerProtocolCodec();
    private final List<String> sent = new ArrayList<>();
    private WorkerTransport.Handler handler;
    private final WorkerTransport transport = (uri, timeout, h) -> {
        handler = h;
        return CompletableFuture.completedFuture(new WorkerTransport.Socket() {
            @Override
            public void send(String text) {
                sent.add(text);
            }

            @Override
            public void close() { }

            @Override
            public void abort() { }
        });
    };

    private WorkerConnection connection(long leaderTerm) {
        return new WorkerConnection(URI.create("ws://w1:8000"), WorkerConnectionConfig.defaults(), transport,
                scheduler, clock, new Random(7), new WorkerConnectionListener() { }, InboundLimit.unbounded(),
                leaderTerm);
    }

    private List<FencedCommand> sentCommands() throws WorkerProtocolException {
        List<FencedCommand> commands = new ArrayList<>();
        for (String text : sent) {
            commands.add(codec.decodeFencedCommand(text));
        }
        return commands;
    }

    @Test
    void everyCommandOfALeadersConnectionCarriesItsTerm() throws Exception {
        WorkerConnection connection = connection(7);
        connection.start();
        scheduler.runUntilIdle();
        handler.onText(EMPTY_REPORT);
        connection.subscribe(CAM);
        connection.setSessionId("1", 5L);
        connection.patchSessionResult(5, true, null);
        connection.unsubscribe("1;2");
        connection.subscribe(CAM);
        scheduler.runUntilIdle();

        handler.onError(new IOException("connection reset")); // the re-send on the next connection too
        scheduler.advance(Duration.ofSeconds(13));
        handler.onText(EMPTY_REPORT);
        scheduler.runUntilIdle();

        assertThat(sentCommands()).extracting(c -> c.command().type()).containsExactly("requestState", "subscribe",
                "setSessionId", "patchSessionResult", "unsubscribe", "subscribe", "requestState", "subscribe");
        assertThat(sentCommands()).allSatisfy(c -> assertThat(c.leaderTerm()).isEqualTo(7));
        assertThat(connection.leaderTerm()).isEqualTo(7);
    }

    @Test
    void aConnectionOfNoTermSpeaksTheOriginalProtocol() {
        WorkerConnection connection = connection(FencedCommand.NO_TERM);
        connection.start();
        scheduler.runUntilIdle();
        handler.onText(EMPTY_REPORT);
        connection.subscribe(CAM);
        scheduler.runUntilIdle();

        assertThat(sent).containsExactly(codec.encode(new WorkerCommand.RequestState()), codec.encode(CAM));
        assertThat(sent).noneMatch(text -> text.contains("leaderTerm"));
        assertThatThrownBy(() -> connection(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaderTerm");
    }
}
