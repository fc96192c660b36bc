package dev.baton.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the decoding of NOTIFY payloads, which any client with access to the schema's channel can send: decoding
 * yields a payload or an {@link IllegalArgumentException} (the one {@link NoticeRouter} logs and drops), a message
 * body yields bytes or that same exception, and a decoded payload survives a round trip. Plain test runs replay the
 * inputs under {@code NoticePayloadFuzzTestInputs}; see docs/fuzzing.md for a campaign.
 */
class NoticePayloadFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        NoticePayload payload;
        try {
            payload = NoticePayload.decode(text);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("payload");
            return;
        }
        assertThat(NoticePayload.decode(payload.encode())).isEqualTo(payload);
        if (payload.kind() == NoticePayload.Kind.MESSAGE) {
            try {
                payload.messageBytes();
            } catch (IllegalArgumentException e) {
                // Not base64: the store logs and drops it.
            }
        }
    }
}
