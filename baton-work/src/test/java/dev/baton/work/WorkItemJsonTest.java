package dev.baton.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The seed's DesiredCameraSubscription as JSON: what is accepted, and what each refusal names. */
class WorkItemJsonTest {

    private static final String MINIMAL = "{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":1,\"modelName\":\"plates\"}";

    @Test
    void aFullItemRoundTripsWithTheSeedsFieldNames() {
        String json = "{\"subscriptionIdentifier\":\"display-1;camera-7\",\"rtspUrl\":\"rtsps://cam-7/live\","
                + "\"modelId\":42,\"modelName\":\"plates\",\"modelUrl\":\"https://models/p.onnx?sig=x\","
                + "\"snapshotUrl\":\"http://cam-7/snap.jpg\",\"snapshotInterval\":5000,\"cropX1\":10,\"cropY1\":20,"
                + "\"cropX2\":110,\"cropY2\":220,\"weight\":3,\"createdAt\":\"2026-01-31T12:00:00Z\"}";

        WorkItem item = WorkItemJson.parse(bytes(json), "display-1;camera-7");

        assertThat(item).isEqualTo(new WorkItem("display-1;camera-7", "rtsps://cam-7/live", 42L, "plates",
                "https://models/p.onnx?sig=x", "http://cam-7/snap.jpg", 5000L, 10, 20, 110, 220, 3,
                "2026-01-31T12:00:00Z"));
        assertThat(new String(WorkItemJson.toJson(item), StandardCharsets.UTF_8)).isEqualTo(json);
        assertThat(WorkItemJson.parse(WorkItemJson.toJson(item))).isEqualTo(item);
        assertThat(item.effectiveWeight()).isEqualTo(3);
        assertThat(item.hasCrop()).isTrue();
    }

    @Test
    void absentOptionalFieldsStayOutOfTheJsonAndWeightDefaultsToOne() {
        WorkItem item = WorkItemJson.parse(bytes("{\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":1,\"modelName\":\"p\","
                + "\"modelUrl\":null}"), "x");

        assertThat(new String(WorkItemJson.toJson(item), StandardCharsets.UTF_8))
                .isEqualTo("{\"subscriptionIdentifier\":\"x\",\"rtspUrl\":\"rtsp://cam/s\",\"modelId\":1,"
                        + "\"modelName\":\"p\"}");
        assertThat(item.effectiveWeight()).isEqualTo(1);
        assertThat(item.hasCrop()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"modelId\":1,\"modelName\":\"p\"}                                            | rtspUrl   | required",
        "{\"rtspUrl\":\"\",\"modelId\":1,\"modelName\":\"p\"}                           | rtspUrl   | blank",
        "{\"rtspUrl\":\"ftp://cam/s\",\"modelId\":1,\"modelName\":\"p\"}               | rtspUrl   | rtsp://",
        "{\"rtspUrl\":\"rtsp:///nohost\",\"modelId\":1,\"modelName\":\"p\"}             | rtspUrl   | host",
        "{\"rtspUrl\":7,\"modelId\":1,\"modelName\":\"p\"}                              | rtspUrl   | string",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelName\":\"p\"}                               | modelId   | required",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":0,\"modelName\":\"p\"}                 | modelId   | at least 1",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":true,\"modelName\":\"p\"}              | modelId   | whole number",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":99999999999999999999,\"modelName\":\"p\"} | modelId | out of range",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\" \"}                 | modelName | blank",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":[\"p\"]}               | modelName | array",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"modelUrl\":\"s3://b/k\"} | modelUrl | http",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"snapshotInterval\":0} | snapshotInterval | at least 1",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"cropX1\":-1,\"cropY1\":0,\"cropX2\":5,\"cropY2\":5} | cropX1 | negative",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"cropX1\":1,\"cropY1\":0,\"cropX2\":5} | cropY2 | all of",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"cropX1\":5,\"cropY1\":0,\"cropX2\":5,\"cropY2\":5} | cropX2 | greater",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"cropX1\":1.5,\"cropY1\":0,\"cropX2\":5,\"cropY2\":5} | cropX1 | whole number",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"weight\":1000001} | weight  | 1000000",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"createdAt\":\"yesterday\"} | createdAt | ISO-8601",
        "{\"rtspUrl\":\"rtsp://c/s\",\"modelId\":1,\"modelName\":\"p\",\"priority\":1}  | priority  | unknown field"})
    void eachRefusalNamesItsField(String json, String field, String says) {
        assertThatThrownBy(() -> WorkItemJson.parse(bytes(json), "item-1"))
                .isInstanceOfSatisfying(InvalidWorkItemException.class, e -> {
                    assertThat(e.field()).hasValue(field);
                    assertThat(e.getMessage()).contains(field).contains(says);
                });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"rtspUrl\":                          | it ends too early",
        "[]                                    | JSON object",
        "'\"text\"'                              | JSON object",
        "''                                    | empty",
        "{\"a\":1} {\"b\":2}                    | unexpected text after it at line 1, column 9",
        "{\"modelId\":1,\"modelId\":2}          | the field 'modelId' appears twice",
        "{\"modelId\":1,}                       | unexpected character '}'",
        "{\"modelId\":tru}                      | unexpected text where a value belongs",
        "{'modelId':1}                         | unexpected character",
        "{\"modelId\":01}                       | number"})
    void malformedJsonIsRefusedAsAWholeInPlainWords(String json, String says) {
        assertThatThrownBy(() -> WorkItemJson.parse(bytes(json), "item-1"))
                .isInstanceOfSatisfying(InvalidWorkItemException.class, e -> {
                    assertThat(e.field()).isEmpty();
                    assertThat(e.getMessage()).contains(says)
                            .doesNotContain("Feature").doesNotContain("com.fasterxml").doesNotContain("Source")
                            .doesNotContain("`").doesNotContain("token (").doesNotContain("\n");
                });
    }

    @Test
    void theIdInTheBodyMustMatchAndIdsAreChecked() {
        assertThat(WorkItemJson.parse(bytes("{\"subscriptionIdentifier\":\"a;b\"," + MINIMAL.substring(1)), "a;b")
                .subscriptionIdentifier()).isEqualTo("a;b");
        assertThatThrownBy(() -> WorkItemJson.parse(bytes("{\"subscriptionIdentifier\":\"a;c\","
                + MINIMAL.substring(1)), "a;b")).hasMessageContaining("does not match");
        assertThatThrownBy(() -> WorkItemJson.parse(bytes(MINIMAL), "bad\nid"))
                .hasMessageContaining("control characters");
        assertThatThrownBy(() -> WorkItemJson.parse(bytes(MINIMAL), "x".repeat(WorkItem.MAX_ID_LENGTH + 1)))
                .hasMessageContaining("at most");
        assertThatThrownBy(() -> WorkItemJson.parse(bytes(MINIMAL))).isInstanceOfSatisfying(
                InvalidWorkItemException.class, e -> assertThat(e.field()).hasValue("subscriptionIdentifier"));
    }

    @Test
    void aMessageNeverEchoesAHugeBody() {
        String huge = "{\"rtspUrl\":\"" + "x".repeat(100_000);

        assertThatThrownBy(() -> WorkItemJson.parse(bytes(huge), "id"))
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(500));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
