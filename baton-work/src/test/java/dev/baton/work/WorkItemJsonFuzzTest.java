package dev.baton.work;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Fuzzes what the HTTP API reads from a client: a work item's JSON body and its id from the path. Parsing yields an
 * item or an {@link InvalidWorkItemException} (the API's 400), never another exception, and a parsed item survives a
 * round trip. Plain test runs replay the inputs under {@code WorkItemJsonFuzzTestInputs}; see docs/fuzzing.md.
 */
class WorkItemJsonFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void parse(byte[] input) {
        WorkItem item;
        try {
            item = WorkItemJson.parse(input);
        } catch (InvalidWorkItemException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(WorkItemJson.parse(WorkItemJson.toJson(item))).isEqualTo(item);
    }

    /** The body sent with {@code PUT /work/items/{id}}: the input up to its first newline is the id, the rest the body. */
    @FuzzTest(maxDuration = "30s")
    void parseForId(byte[] input) {
        int newline = 0;
        while (newline < input.length && input[newline] != '\n') {
            newline++;
        }
        String id = new String(input, 0, newline, StandardCharsets.UTF_8);
        byte[] body = Arrays.copyOfRange(input, Math.min(newline + 1, input.length), input.length);
        WorkItem item;
        try {
            item = WorkItemJson.parse(body, id);
        } catch (InvalidWorkItemException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(item.subscriptionIdentifier()).isEqualTo(id);
        assertThat(WorkItemJson.parse(WorkItemJson.toJson(item), id)).isEqualTo(item);
    }

    @FuzzTest(maxDuration = "30s")
    void checkId(byte[] input) {
        String id = new String(input, StandardCharsets.UTF_8);
        try {
            assertThat(WorkItem.checkId(id)).isSameAs(id);
        } catch (InvalidWorkItemException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
