package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.work.WorkItem;
import dev.baton.work.worker.WorkerMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bus messages' exact bytes: every process of a group (including one running an older release during a rolling
 * upgrade) reads what the others write, so the encoding of every message type is pinned here, field order included,
 * and each golden text decodes to its message.
 */
class BusCodecGoldenTest {

    private static final WorkItem ITEM = WorkItem.builder("d1;c1").rtspUrl("rtsp://c/1").model(4, "plates")
            .crop(1, 2, 30, 40).build();

    private final BusCodec codec = new BusCodec();

    private record Golden(BusMessage message, String json) { }

    private static Golden golden(BusMessage message, String json) {
        return new Golden(message, json);
    }

    @Test
    void everyMessageTypeIsWrittenExactlyAsBefore() throws Exception {
        List<Golden> cases = List.of(
                golden(new BusMessage.Detection("g", "p1", "term-4", 17, true, "ws://w:1", "2026-01-01T00:00:00Z",
                        new WorkerMessage.ImageDetection("d1;c1", "2026-01-01T00:00:00Z",
                                new WorkerMessage.Detection("M", "B", 2020, null, "PL", null), 4, "plates")),
                        "{\"type\":\"detection\",\"group\":\"g\",\"workerUrl\":\"ws://w:1\",\"data\":{\"type\":\"i"
                        + "mageDetection\",\"subscriptionIdentifier\":\"d1;c1\",\"timestamp\":\"2026-01-01T"
                        + "00:00:00Z\",\"data\":{\"detection\":{\"carModel\":\"M\",\"carBrand\":\"B\",\"carYear\":"
                        + "2020,\"licensePlateText\":\"PL\"},\"modelId\":4,\"modelName\":\"plates\"}},\"timest"
                        + "amp\":\"2026-01-01T00:00:00Z\",\"sender\":\"p1\",\"stream\":\"term-4\",\"seq\":17,\"gl"
                        + "obal\":true}"),
                golden(new BusMessage.Detection("g", "p1", "term-4", 18, 12, false, "ws://w:1", "1767225600000",
                        new WorkerMessage.ImageDetection("d1;c1", "1767225600000", WorkerMessage.Detection.NONE, 4,
                                "plates")),
                        "{\"type\":\"detection\",\"group\":\"g\",\"workerUrl\":\"ws://w:1\",\"data\":{\"type\":\"i"
                        + "mageDetection\",\"subscriptionIdentifier\":\"d1;c1\",\"timestamp\":\"17672256000"
                        + "00\",\"data\":{\"detection\":{},\"modelId\":4,\"modelName\":\"plates\"}},\"timestamp"
                        + "\":\"1767225600000\",\"sender\":\"p1\",\"stream\":\"term-4\",\"seq\":18,\"floor\":12,\"g"
                        + "lobal\":false}"),
                golden(new BusMessage.Ack("g", "term-4", 17, "p2"),
                        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"term-4\",\"upTo\":17,\"from\":\"p2\"}"),
                golden(new BusMessage.Response("g", "r-1", false, true, 0, "not the leader"),
                        "{\"type\":\"command_response\",\"group\":\"g\",\"requestId\":\"r-1\",\"ok\":false,\"ret"
                        + "ryable\":true,\"value\":0,\"error\":\"not the leader\"}"),
                golden(new BusMessage.Response("g", "r-1", true, false, 3, null),
                        "{\"type\":\"command_response\",\"group\":\"g\",\"requestId\":\"r-1\",\"ok\":true,\"retr"
                        + "yable\":false,\"value\":3}"),
                golden(new BusMessage.Regenerate("g", "camera added", "p2", "2026-01-01T00:00:00Z"),
                        "{\"type\":\"regenerate_subscriptions\",\"group\":\"g\",\"reason\":\"camera added\",\""
                        + "triggeredBy\":\"p2\",\"timestamp\":\"2026-01-01T00:00:00Z\"}"),
                golden(new BusMessage.Regenerate("g", null, null, null),
                        "{\"type\":\"regenerate_subscriptions\",\"group\":\"g\"}"),
                golden(new BusMessage.SubscribeItem("g", "r-2", "p2", ITEM),
                        "{\"type\":\"subscribe_camera\",\"group\":\"g\",\"requestId\":\"r-2\",\"replyTo\":\"p2\","
                        + "\"item\":{\"subscriptionIdentifier\":\"d1;c1\",\"rtspUrl\":\"rtsp://c/1\",\"modelId"
                        + "\":4,\"modelName\":\"plates\",\"cropX1\":1,\"cropY1\":2,\"cropX2\":30,\"cropY2\":40}}"),
                golden(new BusMessage.SubscribeItem("g", "r-2", "p2", ITEM, 9),
                        "{\"type\":\"subscribe_camera\",\"group\":\"g\",\"requestId\":\"r-2\",\"replyTo\":\"p2\","
                        + "\"term\":9,\"item\":{\"subscriptionIdentifier\":\"d1;c1\",\"rtspUrl\":\"rtsp://c/1\""
                        + ",\"modelId\":4,\"modelName\":\"plates\",\"cropX1\":1,\"cropY1\":2,\"cropX2\":30,\"cro"
                        + "pY2\":40}}"),
                golden(new BusMessage.UnsubscribeItem("g", "r-3", "p2", "d1;c1"),
                        "{\"type\":\"unsubscribe_camera\",\"group\":\"g\",\"requestId\":\"r-3\",\"replyTo\":\"p2"
                        + "\",\"subscriptionIdentifier\":\"d1;c1\"}"),
                golden(new BusMessage.UnsubscribeCamera("g", "r-4", "p2", "c1", 9),
                        "{\"type\":\"unsubscribe_camera_all\",\"group\":\"g\",\"requestId\":\"r-4\",\"replyTo\""
                        + ":\"p2\",\"term\":9,\"cameraId\":\"c1\"}"),
                golden(new BusMessage.SetSession("g", "r-5", "p2", "d1;c1", null),
                        "{\"type\":\"set_session_id\",\"group\":\"g\",\"requestId\":\"r-5\",\"replyTo\":\"p2\",\"s"
                        + "ubscriptionIdentifier\":\"d1;c1\",\"sessionId\":null}"),
                golden(new BusMessage.SetSession("g", "r-5", "p2", "d1;c1", 77L, 2),
                        "{\"type\":\"set_session_id\",\"group\":\"g\",\"requestId\":\"r-5\",\"replyTo\":\"p2\",\"t"
                        + "erm\":2,\"subscriptionIdentifier\":\"d1;c1\",\"sessionId\":77}"),
                golden(new BusMessage.Listeners("g", "r-6", "p2",
                        new ListenerCard("p2", -5, 3, Set.of("d2;c1", "d1;c1"), true)),
                        "{\"type\":\"listeners\",\"group\":\"g\",\"requestId\":\"r-6\",\"replyTo\":\"p2\",\"card\":"
                        + "{\"processId\":\"p2\",\"incarnation\":-5,\"version\":3,\"global\":true,\"items\":[\"d"
                        + "1;c1\",\"d2;c1\"]}}"));
        for (Golden g : cases) {
            assertThat(new String(codec.encode(g.message()), StandardCharsets.UTF_8)).isEqualTo(g.json());
            assertThat(codec.decode(g.json().getBytes(StandardCharsets.UTF_8))).isEqualTo(g.message());
        }
    }

    @Test
    void aListenerCardIsStoredExactlyAsBefore() throws Exception {
        ListenerCard card = new ListenerCard("p3", 8, 1, Set.of(), false);
        String json = "{\"processId\":\"p3\",\"incarnation\":8,\"version\":1,\"global\":false,\"items\":[]}";
        assertThat(new String(codec.encodeCard(card), StandardCharsets.UTF_8)).isEqualTo(json);
        assertThat(codec.decodeCard(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(card);
    }
}
