package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.work.worker.WorkerMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A batch of routed results ({@code detections}): written around the results' own bytes, read back whole. */
class BusCodecBatchTest {

    private final BusCodec codec = new BusCodec();

    private static BusMessage.Detection detection(String group, long seq) {
        return new BusMessage.Detection(group, "p1", "term-4", seq, 1, seq % 2 == 0, "ws://w:1",
                "2026-01-01T00:00:00Z", new WorkerMessage.ImageDetection("d1;c1", "2026-01-01T00:00:00Z",
                        new WorkerMessage.Detection("M", "B", 2020, null, "PL-" + seq, null), 4, "plates"));
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aBatchBuiltFromEncodedResultsIsWhatDataBindingWrites() throws Exception {
        BusMessage.Detections batch = new BusMessage.Detections("g\"1", List.of(detection("g\"1", 1),
                detection("g\"1", 2), detection("g\"1", 3)));
        byte[] built = codec.encodeDetections("g\"1",
                batch.results().stream().map(codec::encode).toList());
        assertThat(new String(built, StandardCharsets.UTF_8))
                .isEqualTo(new String(codec.encode(batch), StandardCharsets.UTF_8))
                .startsWith("{\"type\":\"detections\",\"group\":\"g\\\"1\",\"results\":[{\"type\":\"detection\"");
        assertThat(codec.decode(built)).isEqualTo(batch);
    }

    @Test
    void aBatchOfOneIsThatResultAlone() throws Exception {
        byte[] one = codec.encode(detection("g", 1));
        assertThat(codec.encodeDetections("g", List.of(one))).isSameAs(one);
    }

    @Test
    void anEmptyBatchIsNeitherWrittenNorRead() {
        assertThatThrownBy(() -> codec.encodeDetections("g", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(json("{\"type\":\"detections\",\"group\":\"g\",\"results\":[]}")))
                .isInstanceOf(BusProtocolException.class)
                .hasMessage("detections: field results must not be empty");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"type\":\"detections\",\"group\":\"g\",\"results\":[5]}|detections: results[0] must be an object",
        "{\"type\":\"detections\",\"group\":\"g\",\"results\":[{\"type\":\"ack\",\"group\":\"g\"}]}"
            + "|detections: results[0] must be a detection",
        "{\"type\":\"detections\",\"group\":\"g\",\"results\":[{\"type\":\"detection\",\"group\":\"h\"}]}"
            + "|detections: results[0] is of group \"h\", not the batch's",
        "{\"type\":\"detections\",\"group\":\"g\",\"results\":[{\"type\":\"detection\",\"group\":\"g\",\"seq\":3,"
            + "\"floor\":4}]}|detections: results[0]: detection: field floor must be between 1 and seq, was 4",
        "{\"type\":\"detections\",\"group\":\"g\"}|detections: field results is missing",
        "{\"type\":\"detections\",\"group\":\"g\",\"results\":{}}|detections: field results must be an array",
    })
    void aBadBatchIsRefusedWithItsProblemNamed(String testCase) {
        String[] parts = testCase.split("\\|");
        assertThatThrownBy(() -> codec.decode(json(parts[0]))).isInstanceOf(BusProtocolException.class)
                .hasMessage(parts[1]);
    }

    @Test
    void aResultInABatchIsCheckedAsIfItCameAlone() {
        String result = new String(codec.encode(detection("g", 1)), StandardCharsets.UTF_8)
                .replace("\"workerUrl\":\"ws://w:1\",", "");
        assertThatThrownBy(() -> codec.decode(json("{\"type\":\"detections\",\"group\":\"g\",\"results\":["
                + result + "]}"))).isInstanceOf(BusProtocolException.class).hasMessageContaining("workerUrl");
    }
}
