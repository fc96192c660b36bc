package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A single node on the in-memory backend: the simplest deployment, and the JSON contract end to end. */
class MemoryNodeTest {

    private static final Pattern TS = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");

    private final NodeGroup nodes = new NodeGroup();

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @Test
    void anApiWithoutATokenOnLoopbackSaysSoInOneWarningLine() throws java.io.IOException {
        int port = freePort();
        NodeProcess node = nodes.start("open", "--backend", "memory", "--group", "g", "--profile", "fast",
                "--http", "127.0.0.1:" + port);

        await().atMost(Duration.ofSeconds(20)).until(() -> node.events("leadership-acquired").size() >= 1);

        assertThat(node.stderr().lines().filter(line -> line.contains("accepts writes without a token")))
                .singleElement().asString().contains("WARN").contains("127.0.0.1:" + port)
                .contains("--api-token-file");
    }

    @Test
    void leadsAloneAndReleasesOnSigterm() {
        NodeProcess node = nodes.start("solo", "--backend", "memory", "--group", "g", "--profile", "fast",
                "--fenced-writes", "50ms");

        await().atMost(Duration.ofSeconds(20)).until(() -> node.events("fenced-write").size() >= 2);
        node.sigterm();
        int exit = node.awaitExit(Duration.ofSeconds(10));

        assertThat(exit).as(node.describe()).isZero();
        List<JsonNode> lines = node.lines();
        assertThat(lines.get(0).path("event").asText()).isEqualTo("node-started");
        assertThat(lines.get(0).path("group").asText()).isEqualTo("g");
        assertThat(lines.get(0).path("backend").asText()).isEqualTo("memory");
        JsonNode acquired = node.last("leadership-acquired").orElseThrow();
        assertThat(acquired.path("term").asLong()).isPositive();
        assertThat(acquired.path("leader").asText()).isEqualTo("solo");
        assertThat(node.events("fenced-write")).allSatisfy(write -> {
            assertThat(write.path("accepted").asBoolean()).isTrue();
            assertThat(write.path("term").asLong()).isEqualTo(acquired.path("term").asLong());
        });
        JsonNode lost = node.last("leadership-lost").orElseThrow();
        assertThat(lost.path("reason").asText()).isEqualTo("RELEASED");
        assertThat(lines.get(lines.size() - 1).path("event").asText()).isEqualTo("node-stopped");
        assertThat(lines).allSatisfy(line -> {
            assertThat(line.path("node").asText()).isEqualTo("solo");
            assertThat(line.path("ts").asText()).matches(TS);
        });
        assertThat(node.notJson()).isEmpty();
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
