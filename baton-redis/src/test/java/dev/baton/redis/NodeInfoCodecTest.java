package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.redis.internal.NodeInfoCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeInfoCodecTest {

    private final NodeInfoCodec codec = new NodeInfoCodec();

    private NodeInfo decode(String json) {
        return codec.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aNodeSurvivesTheRoundTrip() {
        NodeInfo node = new NodeInfo("id-1", "orders-api", "http://10.0.0.1:8080", Role.LEADER,
                new Capabilities(false, 3, 20), Map.of("zone", "eu", "rack", "7"),
                Instant.parse("2026-01-01T00:00:00.123Z"), Instant.parse("2026-01-01T00:00:10.456Z"));

        assertThat(codec.decode(codec.encode(node))).isEqualTo(node);
    }

    @Test
    void theSeedsProcessInfoIsUnderstood() {
        NodeInfo node = decode("{\"processId\":\"p\",\"nodeId\":\"p\",\"role\":\"master\","
                + "\"lastSeen\":\"2025-08-12T09:06:37.123Z\",\"capabilities\":{\"canProcessDetections\":true,"
                + "\"maxSubscriptions\":5,\"preferredWorkload\":50},\"extra\":{\"nested\":[1,{}]}}");

        assertThat(node.id()).isEqualTo("p");
        assertThat(node.identifier()).as("falls back to the id").isEqualTo("p");
        assertThat(node.role()).isEqualTo(Role.LEADER);
        assertThat(node.capabilities()).isEqualTo(new Capabilities(true, 5, 50));
        assertThat(node.lastSeen()).isEqualTo(Instant.parse("2025-08-12T09:06:37.123Z"));
        assertThat(node.registeredAt()).isNull();
    }

    @Test
    void lenientAboutValuesTheSeedMayWrite() {
        NodeInfo node = decode("{\"nodeId\":\"n\",\"identifier\":\"x\",\"role\":\"observer\","
                + "\"metadata\":{\"port\":8080,\"tags\":[\"a\"],\"none\":null,\"s\":\"t\"},"
                + "\"registeredAt\":\"2025-08-12T09:06:37Z\",\"lastSeen\":\"yesterday\"}");

        assertThat(node.id()).isEqualTo("n");
        assertThat(node.role()).isEqualTo(Role.FOLLOWER);
        assertThat(node.capabilities()).isEqualTo(Capabilities.DEFAULT);
        assertThat(node.metadata()).containsExactlyInAnyOrderEntriesOf(
                Map.of("port", "8080", "tags", "[\"a\"]", "s", "t"));
        assertThat(node.registeredAt()).isEqualTo(Instant.parse("2025-08-12T09:06:37Z"));
        assertThat(node.lastSeen()).isNull();
    }

    @Test
    void textThatIsNotAProcessIsRejected() {
        assertThatThrownBy(() -> decode("{oops")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode("[1]")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode("{\"identifier\":\"no id\"}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode("{\"processId\":\"p\",\"capabilities\":{\"maxSubscriptions\":-1}}"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
