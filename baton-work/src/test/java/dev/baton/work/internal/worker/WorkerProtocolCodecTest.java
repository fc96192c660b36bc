package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.work.internal.worker.WorkerProtocolException.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every message of the original design's WebSocket table, read from and written to JSON with its field names, Baton's
 * {@code leaderTerm} on commands, and every reason a message is refused.
 */
class WorkerProtocolCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final WorkerProtocolCodec codec = new WorkerProtocolCodec();

    private static JsonNode tree(String json) throws Exception {
        return JSON.readTree(json);
    }

    private void assertCommand(WorkerCommand command, String golden) throws Exception {
        assertThat(tree(codec.encode(command))).isEqualTo(tree(golden));
        assertThat(codec.decodeCommand(golden)).isEqualTo(command);
    }

    private void assertFencedCommand(WorkerCommand command, long term, String golden) throws Exception {
        assertThat(tree(codec.encode(command, term))).isEqualTo(tree(golden));
        assertThat(codec.decodeFencedCommand(golden)).isEqualTo(new FencedCommand(command, term));
    }

    private void assertMessage(WorkerMessage message, String golden) throws Exception {
        assertThat(codec.decodeMessage(golden)).isEqualTo(message);
        assertThat(tree(codec.encode(message))).isEqualTo(tree(golden));
    }

    @Test
    void subscribeWithEveryFieldUsesTheSeedsPayload() throws Exception {
        assertCommand(new WorkerCommand.Subscribe("display-1;cam-7", "rtsp://cam/7", "http://cam/7/snap", 5000L,
                        "https://models/m.pt?sig=x", "car-detector", 42L, 10, 20, 300, 400),
                "{\"type\":\"subscribe\",\"payload\":{\"subscriptionIdentifier\":\"display-1;cam-7\","
                        + "\"rtspUrl\":\"rtsp://cam/7\",\"snapshotUrl\":\"http://cam/7/snap\",\"snapshotInterval\":5000,"
                        + "\"modelUrl\":\"https://models/m.pt?sig=x\",\"modelName\":\"car-detector\",\"modelId\":42,"
                        + "\"cropX1\":10,\"cropY1\":20,\"cropX2\":300,\"cropY2\":400}}");
    }

    @Test
    void subscribeLeavesOptionalFieldsOut() throws Exception {
        assertCommand(WorkerCommand.Subscribe.of("1;2", "rtsp://a", "https://m", "m", 3),
                "{\"type\":\"subscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\",\"rtspUrl\":\"rtsp://a\","
                        + "\"modelUrl\":\"https://m\",\"modelName\":\"m\",\"modelId\":3}}");
    }

    @Test
    void unsubscribeRequestStateSetSessionIdAndPatchSessionResult() throws Exception {
        assertCommand(new WorkerCommand.Unsubscribe("1;2"),
                "{\"type\":\"unsubscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\"}}");
        assertCommand(new WorkerCommand.RequestState(), "{\"type\":\"requestState\"}");
        assertCommand(new WorkerCommand.SetSessionId("display-1", 77L),
                "{\"type\":\"setSessionId\",\"payload\":{\"displayIdentifier\":\"display-1\",\"sessionId\":77}}");
        assertCommand(new WorkerCommand.SetSessionId("display-1", null),
                "{\"type\":\"setSessionId\",\"payload\":{\"displayIdentifier\":\"display-1\",\"sessionId\":null}}");
        assertCommand(new WorkerCommand.PatchSessionResult(77, true, "ok"),
                "{\"type\":\"patchSessionResult\",\"payload\":{\"sessionId\":77,\"success\":true,\"message\":\"ok\"}}");
        assertCommand(new WorkerCommand.PatchSessionResult(77, false, null),
                "{\"type\":\"patchSessionResult\",\"payload\":{\"sessionId\":77,\"success\":false}}");
    }

    @Test
    void everyCommandCarriesItsLeadersTermBesideItsType() throws Exception {
        assertFencedCommand(WorkerCommand.Subscribe.of("1;2", "rtsp://a", "https://m", "m", 3), 7,
                "{\"type\":\"subscribe\",\"leaderTerm\":7,\"payload\":{\"subscriptionIdentifier\":\"1;2\","
                        + "\"rtspUrl\":\"rtsp://a\",\"modelUrl\":\"https://m\",\"modelName\":\"m\",\"modelId\":3}}");
        assertFencedCommand(new WorkerCommand.Unsubscribe("1;2"), 7,
                "{\"type\":\"unsubscribe\",\"leaderTerm\":7,\"payload\":{\"subscriptionIdentifier\":\"1;2\"}}");
        assertFencedCommand(new WorkerCommand.RequestState(), 1_767_225_600_000_123L,
                "{\"type\":\"requestState\",\"leaderTerm\":1767225600000123}");
        assertFencedCommand(new WorkerCommand.SetSessionId("display-1", null), 7,
                "{\"type\":\"setSessionId\",\"leaderTerm\":7,\"payload\":{\"displayIdentifier\":\"display-1\","
                        + "\"sessionId\":null}}");
        assertFencedCommand(new WorkerCommand.PatchSessionResult(77, true, null), 7,
                "{\"type\":\"patchSessionResult\",\"leaderTerm\":7,\"payload\":{\"sessionId\":77,"
                        + "\"success\":true}}");
    }

    @Test
    void aCommandWithoutALeaderTermIsTheOriginalProtocolAndDecodesWithNoTerm() throws Exception {
        WorkerCommand unsubscribe = new WorkerCommand.Unsubscribe("1;2");
        assertThat(codec.encode(unsubscribe, FencedCommand.NO_TERM)).isEqualTo(codec.encode(unsubscribe))
                .doesNotContain("leaderTerm");
        assertThat(codec.decodeFencedCommand(
                "{\"type\":\"unsubscribe\",\"payload\":{\"subscriptionIdentifier\":\"1;2\"}}"))
                .isEqualTo(FencedCommand.unfenced(unsubscribe));
        assertThat(codec.decodeFencedCommand("{\"type\":\"requestState\",\"leaderTerm\":null}").hasTerm())
                .isFalse();
        // 7.0 is 7, as for every integer of the protocol; the plain decoder reads past the term.
        assertThat(codec.decodeFencedCommand("{\"type\":\"requestState\",\"leaderTerm\":7.0}").leaderTerm())
                .isEqualTo(7);
        assertThat(codec.decodeCommand("{\"type\":\"requestState\",\"leaderTerm\":7}"))
                .isEqualTo(new WorkerCommand.RequestState());
    }

    @Test
    void aLeaderTermThatIsNotAPositiveIntegerIsRefusedByName() {
        for (String term : List.of("\"7\"", "1.5", "true", "0", "-3", "1e19")) {
            assertThatThrownBy(() -> codec.decodeFencedCommand("{\"type\":\"requestState\",\"leaderTerm\":"
                    + term + "}")).as(term).isInstanceOfSatisfying(WorkerProtocolException.class, e -> {
                        assertThat(e.problem()).isEqualTo(Problem.WRONG_FIELD_TYPE);
                        assertThat(e.getMessage()).startsWith("requestState: field leaderTerm must be");
                    });
        }
        assertThatThrownBy(() -> codec.encode(new WorkerCommand.RequestState(), -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaderTerm");
    }

    @Test
    void stateReportWithCameraConnections() throws Exception {
        assertMessage(new WorkerMessage.StateReport(12.5, 40.0, 3.0, 8.0, List.of(
                        new WorkerMessage.CameraConnection("1;2", 42, "car-detector", true, 10, 20),
                        new WorkerMessage.CameraConnection("1;3", 42, "car-detector", false, null, null))),
                "{\"type\":\"stateReport\",\"cpuUsage\":12.5,\"memoryUsage\":40.0,\"gpuUsage\":3.0,"
                        + "\"gpuMemoryUsage\":8.0,\"cameraConnections\":["
                        + "{\"subscriptionIdentifier\":\"1;2\",\"modelId\":42,\"modelName\":\"car-detector\","
                        + "\"online\":true,\"cropX\":10,\"cropY\":20},"
                        + "{\"subscriptionIdentifier\":\"1;3\",\"modelId\":42,\"modelName\":\"car-detector\","
                        + "\"online\":false}]}");
    }

    @Test
    void stateReportWithPerItemCosts() throws Exception {
        assertMessage(new WorkerMessage.StateReport(1, 2, null, null, List.of(
                        new WorkerMessage.CameraConnection("1;2", 42, "cars", true, null, null, 250.5),
                        new WorkerMessage.CameraConnection("1;3", 42, "cars", true, null, null, 0.0))),
                "{\"type\":\"stateReport\",\"cpuUsage\":1.0,\"memoryUsage\":2.0,\"cameraConnections\":["
                        + "{\"subscriptionIdentifier\":\"1;2\",\"modelId\":42,\"modelName\":\"cars\","
                        + "\"online\":true,\"cost\":250.5},"
                        + "{\"subscriptionIdentifier\":\"1;3\",\"modelId\":42,\"modelName\":\"cars\","
                        + "\"online\":true,\"cost\":0.0}]}");
    }

    @Test
    void aNegativeOrNonNumericCostIsRefusedByName() {
        String entry = "{\"type\":\"stateReport\",\"cpuUsage\":1,\"memoryUsage\":2,\"cameraConnections\":["
                + "{\"subscriptionIdentifier\":\"1;2\",\"modelId\":42,\"modelName\":\"cars\",\"online\":true,"
                + "\"cost\":";
        assertRefused(entry + "-1}]}", Problem.WRONG_FIELD_TYPE, "cost must be at least 0, was -1.0");
        assertRefused(entry + "\"high\"}]}", Problem.WRONG_FIELD_TYPE, "cost must be a number, was a string");
    }

    @Test
    void stateReportWithoutGpu() throws Exception {
        assertMessage(new WorkerMessage.StateReport(1, 2, null, null, List.of()),
                "{\"type\":\"stateReport\",\"cpuUsage\":1.0,\"memoryUsage\":2.0,\"cameraConnections\":[]}");
    }

    @Test
    void imageDetectionWithTheSeedsDataShape() throws Exception {
        assertMessage(new WorkerMessage.ImageDetection("1;2", "2026-01-01T00:00:00.000Z",
                        new WorkerMessage.Detection("Civic", "Honda", 2019, "sedan", "AB-123", "EU"), 42, "cars"),
                "{\"type\":\"imageDetection\",\"subscriptionIdentifier\":\"1;2\","
                        + "\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"data\":{\"detection\":{\"carModel\":\"Civic\","
                        + "\"carBrand\":\"Honda\",\"carYear\":2019,\"bodyType\":\"sedan\",\"licensePlateText\":\"AB-123\","
                        + "\"licensePlateType\":\"EU\"},\"modelId\":42,\"modelName\":\"cars\"}}");
    }

    @Test
    void imageDetectionToleratesEpochTimestampsMissingDetectionAndExtraFields() throws Exception {
        WorkerMessage m = codec.decodeMessage("{\"type\":\"imageDetection\",\"subscriptionIdentifier\":\"1;2\","
                + "\"timestamp\":1767225600000,\"extra\":1,\"data\":{\"modelId\":42.0,\"modelName\":\"cars\","
                + "\"confidence\":0.9}}");
        assertThat(m).isEqualTo(new WorkerMessage.ImageDetection("1;2", "1767225600000",
                WorkerMessage.Detection.NONE, 42, "cars"));
        assertThat(((WorkerMessage.ImageDetection) m).detection().isEmpty()).isTrue();
    }

    @Test
    void patchSessionCarriesAnyData() throws Exception {
        assertMessage(new WorkerMessage.PatchSession(77, Map.of("plate", "AB-123", "count", 2)),
                "{\"type\":\"patchSession\",\"sessionId\":77,\"data\":{\"plate\":\"AB-123\",\"count\":2}}");
        assertMessage(new WorkerMessage.PatchSession(78, null),
                "{\"type\":\"patchSession\",\"sessionId\":78,\"data\":null}");
    }

    @Test
    void malformedJsonIsRefused() {
        assertRefused("{\"type\":\"stateReport\",", Problem.MALFORMED_JSON, "malformed JSON");
        assertRefused("", Problem.MALFORMED_JSON, "malformed JSON");
        assertRefused("not json", Problem.MALFORMED_JSON, "malformed JSON");
    }

    @Test
    void nonObjectsAndMissingTypesAreNotMessages() {
        assertRefused("[1,2]", Problem.NOT_A_MESSAGE, "expected a JSON object");
        assertRefused("{\"cpuUsage\":1}", Problem.NOT_A_MESSAGE, "no \"type\" field");
        assertRefused("{\"type\":5}", Problem.NOT_A_MESSAGE, "\"type\" is a number");
    }

    @Test
    void unknownTypesAreRefusedByName() {
        assertRefused("{\"type\":\"hello\"}", Problem.UNKNOWN_TYPE, "unknown message type \"hello\"");
        // A command is not a message a worker sends.
        assertRefused("{\"type\":\"subscribe\"}", Problem.UNKNOWN_TYPE, "unknown message type \"subscribe\"");
        assertThatThrownBy(() -> codec.decodeCommand("{\"type\":\"stateReport\"}"))
                .isInstanceOfSatisfying(WorkerProtocolException.class,
                        e -> assertThat(e.problem()).isEqualTo(Problem.UNKNOWN_TYPE));
    }

    @Test
    void missingAndMistypedFieldsAreNamed() {
        assertRefused("{\"type\":\"stateReport\",\"memoryUsage\":1,\"cameraConnections\":[]}",
                Problem.MISSING_FIELD, "stateReport: required field cpuUsage is missing");
        assertRefused("{\"type\":\"stateReport\",\"cpuUsage\":\"high\",\"memoryUsage\":1,\"cameraConnections\":[]}",
                Problem.WRONG_FIELD_TYPE, "stateReport: field cpuUsage must be a number, was a string");
        // Found by WorkerProtocolFuzzTest: 2e308 used to be read as Infinity, which the encoder cannot write back.
        assertRefused("{\"type\":\"stateReport\",\"cpuUsage\":2e308,\"memoryUsage\":1,\"cameraConnections\":[]}",
                Problem.WRONG_FIELD_TYPE, "stateReport: field cpuUsage is out of range for a number");
        assertRefused("{\"type\":\"stateReport\",\"cpuUsage\":1,\"memoryUsage\":1,\"cameraConnections\":"
                + "[{\"subscriptionIdentifier\":\"1;2\",\"modelId\":1,\"modelName\":\"m\"}]}",
                Problem.MISSING_FIELD, "field cameraConnections[0].online is missing");
        assertRefused("{\"type\":\"imageDetection\",\"subscriptionIdentifier\":\"1;2\",\"timestamp\":\"t\","
                + "\"data\":{\"modelId\":1.5,\"modelName\":\"m\"}}",
                Problem.WRONG_FIELD_TYPE, "imageDetection: field data.modelId must be an integer, was a number");
        assertRefused("{\"type\":\"patchSession\",\"data\":{}}", Problem.MISSING_FIELD, "sessionId is missing");
    }

    @Test
    void oversizedMessagesAreRefusedBeforeParsing() {
        WorkerProtocolCodec small = new WorkerProtocolCodec(100);
        String big = "{\"type\":\"patchSession\",\"sessionId\":1,\"data\":\"" + "x".repeat(200) + "\"}";
        assertThatThrownBy(() -> small.decodeMessage(big))
                .isInstanceOfSatisfying(WorkerProtocolException.class, e -> {
                    assertThat(e.problem()).isEqualTo(Problem.OVERSIZED);
                    assertThat(e).hasMessage("message of " + big.length() + " bytes exceeds the limit of 100 bytes");
                });
        // Counted in UTF-8 bytes: 40 three-byte characters are 120 bytes.
        String wide = "{\"type\":\"x\",\"d\":\"" + "€".repeat(40) + "\"}";
        assertThatThrownBy(() -> small.decodeMessage(wide))
                .isInstanceOfSatisfying(WorkerProtocolException.class,
                        e -> assertThat(e.problem()).isEqualTo(Problem.OVERSIZED));
        assertThat(new WorkerProtocolCodec().maxMessageBytes()).isEqualTo(1 << 20);
    }

    private void assertRefused(String json, Problem problem, String messagePart) {
        assertThatThrownBy(() -> codec.decodeMessage(json))
                .isInstanceOfSatisfying(WorkerProtocolException.class, e -> {
                    assertThat(e.problem()).isEqualTo(problem);
                    assertThat(e.getMessage()).contains(messagePart);
                });
    }
}
