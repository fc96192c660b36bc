package dev.baton.work.internal.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How the data-bound bus codec words its refusals: a missing, null or mistyped field is named with the message type,
 * as the hand-written decoder before it did; nothing is coerced (a number is not a string, a string is not a number,
 * 1 is not a boolean).
 */
class BusCodecRefusalTest {

    private final BusCodec codec = new BusCodec();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"type\":\"ack\",\"group\":5}|ack: field group must be a string",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":5,\"upTo\":1,\"from\":\"p\"}|ack: field stream must be a string",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"s\",\"upTo\":1.5,\"from\":\"p\"}"
            + "|ack: field upTo must be a whole number",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"s\",\"upTo\":99999999999999999999,\"from\":\"p\"}"
            + "|ack: field upTo must be a whole number",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"s\",\"upTo\":1}|ack: field from is missing",
        "{\"type\":\"ack\",\"group\":\"g\",\"stream\":null,\"upTo\":1,\"from\":\"p\"}|ack: field stream is missing",
        "{\"type\":\"command_response\",\"group\":\"g\",\"requestId\":\"r\",\"ok\":1,\"retryable\":false,\"value\":0}"
            + "|command_response: field ok must be a boolean",
        "{\"type\":\"regenerate_subscriptions\",\"group\":\"g\",\"reason\":true}"
            + "|regenerate_subscriptions: field reason must be a string",
        "{\"type\":\"listeners\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\",\"card\":\"x\"}"
            + "|listeners: field card must be an object",
        "{\"type\":\"listeners\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\",\"card\":{\"processId\":\"p\","
            + "\"incarnation\":1,\"version\":1,\"global\":true,\"items\":\"x\"}}|listeners: field items must be an array",
        "{\"type\":\"listeners\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\",\"card\":{\"processId\":\"p\","
            + "\"incarnation\":1,\"version\":1,\"global\":true,\"items\":[1]}}|listeners: field items must hold strings",
        "{\"type\":\"subscribe_camera\",\"group\":\"g\",\"requestId\":\"r\",\"replyTo\":\"p\",\"item\":[]}"
            + "|subscribe_camera: field item must be an object",
        "{\"type\":\"ack\",\"group\":\"g\",\"group\":\"h\"}|malformed JSON: Duplicate field 'group'"
    })
    void aBadFieldIsNamed(String json, String problem) {
        assertThatThrownBy(() -> codec.decode(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(BusProtocolException.class).hasMessageStartingWith(problem);
    }

    @Test
    void aStoredCardWithoutItemsIsRefused() {
        byte[] json = "{\"processId\":\"p\",\"incarnation\":1,\"version\":1,\"global\":true}"
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> codec.decodeCard(json)).isInstanceOf(BusProtocolException.class)
                .hasMessage("listener card: field items is missing");
    }

    @Test
    void aTermOnAMessageThatIsNoRequestIsIgnoredAsAnyUnknownField() throws Exception {
        byte[] json = "{\"type\":\"ack\",\"group\":\"g\",\"stream\":\"s\",\"upTo\":3,\"from\":\"p\",\"term\":0}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(codec.decode(json)).isEqualTo(new BusMessage.Ack("g", "s", 3, "p"));
    }
}
