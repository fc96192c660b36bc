package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.LeaderInfo;
import dev.baton.core.Leadership;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.time.Clock;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.transport.PeerAddress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventJsonTest {

    private static final Instant AT = Instant.parse("2026-11-21T17:00:00.123456789Z");

    private final EventJson json = new EventJson("node-1");

    @Test
    void timestampsHaveExactlyMillisecondPrecisionInUtc() {
        assertThat(EventJson.timestamp(Instant.parse("2026-11-21T17:00:00Z"))).isEqualTo("2026-11-21T17:00:00.000Z");
        assertThat(EventJson.timestamp(AT)).isEqualTo("2026-11-21T17:00:00.123Z");
        assertThat(EventJson.timestamp(Instant.parse("2026-11-21T17:00:00.999999999Z")))
                .as("truncated, never rounded into the next second")
                .isEqualTo("2026-11-21T17:00:00.999Z");
        assertThat(EventJson.timestamp(Instant.parse("1999-12-31T23:59:59.050Z"))).isEqualTo("1999-12-31T23:59:59.050Z");
    }

    @Test
    void everyLineStartsWithEventAndNodeAndEndsWithTs() {
        ObjectNode line = json.event(new ElectionEvent.ElectionStarted(AT));

        assertThat(fieldNames(line)).containsExactly("event", "node", "ts");
        assertThat(line.toString())
                .isEqualTo("{\"event\":\"election-started\",\"node\":\"node-1\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void leadershipAcquiredCarriesTheTermAndTheLeader() {
        Leadership leadership = new Leadership("g", "node-1", 42, 0, Clock.system(), term -> true);

        ObjectNode line = json.event(new ElectionEvent.LeadershipAcquired(AT, leadership));

        assertThat(line.toString()).isEqualTo("{\"event\":\"leadership-acquired\",\"node\":\"node-1\",\"term\":42,"
                + "\"leader\":\"node-1\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void leadershipLostCarriesTermAndReason() {
        ObjectNode line = json.event(new ElectionEvent.LeadershipLost(AT, 7, LossReason.EXPIRED_LOCALLY));

        assertThat(line.path("event").asText()).isEqualTo("leadership-lost");
        assertThat(line.path("term").asLong()).isEqualTo(7);
        assertThat(line.path("reason").asText()).isEqualTo("EXPIRED_LOCALLY");
    }

    @Test
    void leaderChangedNamesTheLeaderOrNull() {
        ObjectNode known = json.event(new ElectionEvent.LeaderChanged(AT, Optional.of(new LeaderInfo("node-2", 9))));
        ObjectNode none = json.event(new ElectionEvent.LeaderChanged(AT, Optional.empty()));

        assertThat(known.path("leader").asText()).isEqualTo("node-2");
        assertThat(known.path("term").asLong()).isEqualTo(9);
        assertThat(none.has("leader")).isTrue();
        assertThat(none.get("leader").isNull()).isTrue();
        assertThat(none.has("term")).isFalse();
    }

    @Test
    void electionCompletedSaysWhetherThisNodeLeadsAndWho() {
        ObjectNode line = json.event(
                new ElectionEvent.ElectionCompleted(AT, false, Optional.of(new LeaderInfo("node-2", 9))));

        assertThat(line.path("event").asText()).isEqualTo("election-completed");
        assertThat(line.path("leading").asBoolean()).isFalse();
        assertThat(line.path("leader").asText()).isEqualTo("node-2");
        assertThat(line.path("term").asLong()).isEqualTo(9);
    }

    @Test
    void memberEventsNameTheMember() {
        NodeInfo member = NodeInfo.of("node-3", "worker");

        assertThat(json.event(new ElectionEvent.MemberJoined(AT, member)).path("member").asText()).isEqualTo("node-3");
        assertThat(json.event(new ElectionEvent.MemberRemoved(AT, "node-3")).path("member").asText())
                .isEqualTo("node-3");
        ObjectNode changed = json.event(
                new ElectionEvent.MemberStateChanged(AT, member, MemberState.JOINING, MemberState.ACTIVE));
        assertThat(changed.path("event").asText()).isEqualTo("member-state-changed");
        assertThat(changed.path("from").asText()).isEqualTo("JOINING");
        assertThat(changed.path("to").asText()).isEqualTo("ACTIVE");
    }

    @Test
    void errorsCarryAOneLineMessage() {
        ObjectNode line = json.event(new ElectionEvent.ElectionError(AT, "renewing failed\nbecause",
                new IllegalStateException("boom")));

        assertThat(line.path("event").asText()).isEqualTo("error");
        assertThat(line.path("message").asText()).isEqualTo("renewing failed; because");
        assertThat(line.path("cause").asText()).contains("boom");
    }

    @Test
    void fencedWriteLinesCarryTermSequenceAndVerdict() {
        ObjectNode line = json.fencedWrite(5, 12, false, 6, AT);

        assertThat(line.toString()).isEqualTo("{\"event\":\"fenced-write\",\"node\":\"node-1\",\"term\":5,\"seq\":12,"
                + "\"outcome\":\"refused\",\"accepted\":false,\"currentTerm\":6,\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void aFencedWriteWithoutAnAnswerHasAnUnknownOutcomeAndNoVerdict() {
        ObjectNode line = json.fencedWrite(5, 13, null, "got no answer within 500 ms", AT);

        assertThat(line.toString()).isEqualTo("{\"event\":\"fenced-write\",\"node\":\"node-1\",\"term\":5,\"seq\":13,"
                + "\"outcome\":\"unknown\",\"message\":\"got no answer within 500 ms\","
                + "\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void harnessStampsGoBeforeTheTimestamp() {
        ObjectNode line = EventJson.stamp(json.fencedWrite(5, 12, true, 5, AT), "sent", 42);

        assertThat(line.toString()).endsWith("\"sent\":42,\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void nodeStartedDescribesTheNode() {
        NodeSettings settings = new NodeSettings("orders", "node-1", "api", "fast",
                new BackendSpec.Store("memory", ElectionConfig.fast()), Optional.of(Duration.ofMillis(100)),
                Optional.empty());

        ObjectNode line = json.nodeStarted(settings, "memory", 1234, AT);

        assertThat(line.path("event").asText()).isEqualTo("node-started");
        assertThat(line.path("group").asText()).isEqualTo("orders");
        assertThat(line.path("backend").asText()).isEqualTo("memory");
        assertThat(line.path("profile").asText()).isEqualTo("fast");
        assertThat(line.path("leaseTtlMs").asLong()).isEqualTo(3000);
        assertThat(line.path("fencedWritesMs").asLong()).isEqualTo(100);
        assertThat(line.path("pid").asLong()).isEqualTo(1234);
    }

    @Test
    void nodeStartedOnPeerNamesTheQuorumSettingsAndNoSecret() {
        QuorumConfig config = QuorumConfig.fast().clusterSize(3)
                .seeds(PeerAddress.parse("127.0.0.1:7401"), PeerAddress.parse("127.0.0.1:7402")).build();
        NodeSettings settings = new NodeSettings("orders", "127.0.0.1:7401", "api", "fast",
                new BackendSpec.Peer(PeerAddress.parse("127.0.0.1:7401"), config,
                        Optional.of("0123456789abcdef-secret".getBytes(StandardCharsets.UTF_8)), Optional.empty()),
                Optional.empty(), Optional.empty());

        ObjectNode line = json.nodeStarted(settings, "peer 127.0.0.1:7401 (cluster of 3)", 1234, AT);

        assertThat(line.path("backend").asText()).isEqualTo("peer 127.0.0.1:7401 (cluster of 3)");
        assertThat(line.path("listen").asText()).isEqualTo("127.0.0.1:7401");
        assertThat(line.path("seeds").toString()).isEqualTo("[\"127.0.0.1:7401\",\"127.0.0.1:7402\"]");
        assertThat(line.path("clusterSize").asInt()).isEqualTo(3);
        assertThat(line.path("heartbeatIntervalMs").asLong()).isEqualTo(100);
        assertThat(line.path("heartbeatTimeoutMs").asLong()).isEqualTo(500);
        assertThat(line.path("ttlTimeoutMs").asLong()).isEqualTo(1000);
        assertThat(line.path("sharedSecret").asBoolean()).isTrue();
        assertThat(line.path("dataDir").isNull()).isTrue();
        assertThat(line.has("leaseTtlMs")).isFalse();
        assertThat(line.toString()).doesNotContain("secret\"").doesNotContain("0123456789abcdef");
    }

    @Test
    void jsonLinesWritesOneCompactObjectPerLine() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JsonLines lines = new JsonLines(new ObjectMapper(), new PrintStream(bytes, false, StandardCharsets.UTF_8));

        lines.write(json.event(new ElectionEvent.ElectionStarted(AT)));
        lines.write(json.nodeStopped(AT));

        String[] written = bytes.toString(StandardCharsets.UTF_8).split("\n", -1);
        assertThat(written).hasSize(3);
        assertThat(written[2]).isEmpty();
        assertThat(new ObjectMapper().readTree(written[1]).path("event").asText()).isEqualTo("node-stopped");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
