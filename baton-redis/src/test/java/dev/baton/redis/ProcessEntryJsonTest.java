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

/** The public form of a registry entry is exactly the one the store writes and reads. */
class ProcessEntryJsonTest {

    private final NodeInfo node = new NodeInfo("id-1", "orders-api", "http://10.0.0.1:8080", Role.FOLLOWER,
            new Capabilities(true, 4, 30), Map.of("zone", "eu"),
            Instant.parse("2026-01-01T00:00:00.123Z"), Instant.parse("2026-01-01T00:00:10.456Z"));

    @Test
    void itWritesWhatTheStoreWritesAndReadsItBack() {
        byte[] json = ProcessEntryJson.encode(node);

        assertThat(json).isEqualTo(new NodeInfoCodec().encode(node));
        assertThat(ProcessEntryJson.decode(json)).isEqualTo(node);
    }

    @Test
    void textThatIsNotAnEntryIsRefusedWithTheReason() {
        assertThatThrownBy(() -> ProcessEntryJson.decode("[1]".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("not a JSON object");
    }
}
