package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.work.WorkItem;
import dev.baton.work.worker.WorkerMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The bus messages' JSON: every message round-trips; garbage is refused with a message naming the problem. */
class BusCodecTest {

    private final BusCodec codec = new BusCodec();

    @Test
    void everyMessageRoundTrips() throws Exception {
        WorkItem item = WorkItem.builder("d1;c1").rtspUrl("rtsp://c/1").model(4, "plates").crop(1, 2, 30, 40).build();
        List<BusMessage> messages = List.of(
                new BusMessage.Detection("g", "p1", "term-4", 17, true, "ws://w:1", "2026-01-01T00:00:00Z",
                        new WorkerMessage.ImageDetection("d1;c1", "2026-01-01T00:00:00Z",
                                new WorkerMessage.Detection("M", "B", 2020, null, "PL", null), 4, "plates")),
                new BusMessage.Detection("g", "p1", "term-4", 18, 12, false, "ws://w:1", "2026-01-01T00:00:00Z",
                        new WorkerMessage.ImageDetection("d1;c1", "2026-01-01T00:00:00Z", WorkerMessage.Detection.NONE,
                                4, "plates")),
                new BusMessage.Ack("g", "term-4", 17, "p2"),
                new BusMessage.Response("g", "r-1", false, true, 0, "not the leader"),
                new BusMessage.Regenerate("g", "camera added", "p2", "2026-01-01T00:00:00Z"),
                new BusMessage.SubscribeItem("g", "r-2", "p2", item),
                new BusMessage.SubscribeItem("g", "r-2", "p2", item, 9),
                new BusMessage.UnsubscribeCamera("g", "r-7", "p2", "c1", 9),
                new BusMessage.UnsubscribeItem("g", "r-3", "p2", "d1;c1"),
                new BusMessage.UnsubscribeCamera("g", "r-4", "p2", "c1"),
                new BusMessage.SetSession("g", "r-5", "p2", "d1;c1", null),
                new BusMessage.Listeners("g", "r-6", "p2", new ListenerCard("p2", -5, 3, Set.of("d1;c1"), true)));
        for (BusMessage m : messages) {
            assertThat(codec.decode(codec.encode(m))).isEqualTo(m);
        }
        String detection = new String(codec.encode(messages.get(0)), StandardCharsets.UTF_8);
        assertThat(detection).startsWith("{\"type\":\"detection\",\"group\":\"g\",\"workerUrl\":\"ws://w:1\","
                + "\"data\":{\"type\":\"imageDetection\",\"subscriptionIdentifier\":\"d1;c1\"");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "not json|malformed JSON",
        "[1]|not a message: expected a JSON object",
        "{\"group\":\"g\"}|not a message: no string \"type\"",
        "{\"type\":\"hello\",\"group\":\"g\"}|unknown message type \"hello\"",
        "{\"type\":\"ack\",\"stream\":\"s\"}|ack: field group is missing",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"s\",\"upTo\":\"7\",\"from\":\"p\"}"
            + "|ack: field upTo must be a whole number",
        "{\"type\":\"subscribe_camera\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\","
            + "\"item\":{\"rtspUrl\":\"rtsp://c\"}}|subscribe_camera: invalid item",
        "{\"type\":\"detection\",\"group\":\"g\",\"sender\":\"p\",\"stream\":\"s\",\"seq\":1,\"global\":true,"
            + "\"workerUrl\":\"w\",\"timestamp\":\"t\",\"data\":{\"type\":\"stateReport\"}}|detection: field data",
        "{\"type\":\"detection\",\"group\":\"g\",\"sender\":\"p\",\"stream\":\"s\",\"seq\":3,\"floor\":4,"
            + "\"global\":true,\"workerUrl\":\"w\",\"timestamp\":\"t\",\"data\":{}}"
            + "|detection: field floor must be between 1 and seq, was 4",
        "{\"type\":\"unsubscribe_camera\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\","
            + "\"subscriptionIdentifier\":\"d;c\",\"term\":0}|unsubscribe_camera: field term must be at least 1"
    })
    void garbageIsRefusedWithTheProblemNamed(String json, String problem) {
        assertThatThrownBy(() -> codec.decode(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(BusProtocolException.class).hasMessageStartingWith(problem);
    }

    @Test
    void anOversizedMessageIsRefusedBeforeParsing() {
        BusCodec small = new BusCodec(1024);
        byte[] big = ("{\"type\":\"ack\",\"pad\":\"" + "x".repeat(2000) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> small.decode(big)).isInstanceOf(BusProtocolException.class)
                .hasMessageContaining("exceeds the limit of 1024 bytes");
    }
}
