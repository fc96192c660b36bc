package dev.baton.server;

import static dev.baton.server.ServerlessProcessChecks.assertNoTermHasTwoLeaders;
import static dev.baton.server.ServerlessProcessChecks.freePorts;
import static dev.baton.server.ServerlessProcessChecks.sendRaw;
import static dev.baton.server.ServerlessProcessChecks.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.peer.transport.PeerAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five {@code baton node --backend bully} processes on loopback with a file leader store, a shared secret, the fast
 * profile and the HTTP API (issue 7's "done"). One scenario, so the JVMs start once:
 *
 * <ol>
 *   <li>started at once on an empty store, they form one group and, after the hold-down, the highest process id leads
 *       (the store names it), seen by every node;</li>
 *   <li>garbage on the leader's peer port (random bytes, a frame over the size cap) is refused and counted, and
 *       disturbs nothing;</li>
 *   <li>the leader killed with SIGKILL is replaced by the highest surviving process under a higher term;</li>
 *   <li>a process started late finds that leader through the leader store and joins it under the next process id.</li>
 * </ol>
 *
 * <p>No term ever names two leaders in anything a node printed. Bounds are generous correctness bounds for a loaded
 * machine; the failover time is measured by {@code baton-bench bully-failover}, never asserted here.
 */
class BullyClusterProcessTest {

    private static final int NODES = 5;
    private static final String GROUP = "bully-test";
    private static final Duration STARTUP = Duration.ofSeconds(90);
    private static final Duration STEP = Duration.ofSeconds(30);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path temp;

    private final NodeGroup nodes = new NodeGroup();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<NodeProcess, String> peerAddress = new HashMap<>();
    private final Map<NodeProcess, String> apiUrl = new HashMap<>();
    private Path store;
    private Path secretFile;
    private List<Integer> ports;

    @AfterEach
    void stopEverything() {
        nodes.close();
    }

    @Test
    void fiveBullyNodesElectTheHighestIdShrugOffGarbageFailOverAndALateJoinerFindsTheLeader() throws Exception {
        store = temp.resolve("leader.json");
        secretFile = Files.write(temp.resolve("secret"), "a shared secret of the bully nodes".getBytes(
                StandardCharsets.UTF_8));
        ports = freePorts(2 * (NODES + 1));
        for (int i = 0; i < NODES; i++) {
            start(i);
        }

        NodeProcess first = awaitHighestLeadsSeenBy(nodes.all());
        long firstTerm = first.lastAcquiredTerm();
        assertThat(get(first, "/cluster/status").path("backend").asText()).startsWith("bully ");

        garbageDisturbsNothing(first, firstTerm);

        first.sigkill();
        List<NodeProcess> survivors = nodes.all().stream().filter(node -> node != first).toList();
        NodeProcess second = awaitHighestLeadsSeenBy(survivors);
        assertThat(second).isNotSameAs(first);
        assertThat(second.lastAcquiredTerm()).as("the successor's term").isGreaterThan(firstTerm);
        long secondTerm = second.lastAcquiredTerm();

        NodeProcess late = start(NODES);
        await().atMost(STEP).pollInterval(Duration.ofMillis(50)).until(() -> late.last("leader-changed")
                .filter(line -> peerAddress.get(second).equals(line.path("leader").asText())).isPresent());
        assertThat(second.events("member-joined")).as("the leader admitted the late joiner\n%s", second.describe())
                .anySatisfy(line -> {
                    assertThat(line.path("member").asText()).isEqualTo(peerAddress.get(late));
                    assertThat(line.path("processId").asLong()).isGreaterThan(NODES);
                });
        assertThat(second.events("leadership-lost")).as("the late joiner joins; the hold-down keeps it from "
                + "taking over at once").noneMatch(line -> line.path("term").asLong() == secondTerm);
        assertThat(second.lastAcquiredTerm()).isEqualTo(secondTerm);

        assertNoTermHasTwoLeaders(nodes.all());
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
    }

    private NodeProcess start(int index) {
        String name = "b" + (index + 1);
        String peer = "127.0.0.1:" + ports.get(index);
        String httpAddress = "127.0.0.1:" + ports.get(NODES + 1 + index);
        NodeProcess node = nodes.run(name, List.of("node", "--backend", "bully", "--group", GROUP,
                "--profile", "fast", "--listen", peer, "--leader-store", "file:" + store,
                "--secret-file", secretFile.toString(), "--identifier", name, "--http", httpAddress));
        peerAddress.put(node, peer);
        apiUrl.put(node, "http://" + httpAddress);
        return node;
    }

    /**
     * Waits until exactly one living node leads, the store names it, it holds the highest process id of the group,
     * and every node in {@code group} names it with its term.
     */
    private NodeProcess awaitHighestLeadsSeenBy(List<NodeProcess> group) {
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<NodeProcess> leaders = nodes.leaders();
            if (leaders.size() != 1) {
                return false;
            }
            NodeProcess leader = leaders.get(0);
            long term = leader.lastAcquiredTerm();
            Optional<JsonNode> record = record();
            return record.isPresent() && record.get().path("term").asLong() == term
                    && record.get().path("address").asText().equals(peerAddress.get(leader))
                    && record.get().path("processId").asLong() == highestProcessId(group)
                    && group.stream().allMatch(node -> node.isAlive() && node.last("leader-changed")
                            .filter(line -> peerAddress.get(leader).equals(line.path("leader").asText())
                                    && line.path("term").asLong() == term)
                            .isPresent());
        });
        return nodes.leaders().get(0);
    }

    /** The highest process id any node of {@code group} was admitted under (the founder has 1). */
    private long highestProcessId(List<NodeProcess> group) {
        long highest = 1;
        for (NodeProcess admitter : nodes.all()) {
            for (JsonNode joined : admitter.events("member-joined")) {
                String member = joined.path("member").asText();
                boolean inGroup = group.stream().anyMatch(node -> peerAddress.get(node).equals(member));
                if (inGroup) {
                    highest = Math.max(highest, joined.path("processId").asLong());
                }
            }
        }
        return highest;
    }

    private void garbageDisturbsNothing(NodeProcess leader, long term) throws Exception {
        PeerAddress target = PeerAddress.parse(peerAddress.get(leader));
        Map<String, Double> before = ServerlessProcessChecks.rejected(text(leader, "/metrics"));

        byte[] garbage = new byte[4096];
        new Random(20_261_122L).nextBytes(garbage);
        sendRaw(target, garbage);
        sendRaw(target, ByteBuffer.allocate(5 + 65_536).putInt(2 << 20).put((byte) 5).array()); // 2 MiB, before a handshake
        await().atMost(STEP).until(() -> {
            Map<String, Double> now = ServerlessProcessChecks.rejected(text(leader, "/metrics"));
            return total(now) >= total(before) + 2
                    && now.get("oversized_before_handshake") > before.get("oversized_before_handshake");
        });

        assertThat(leader.isAlive()).isTrue();
        assertThat(nodes.leaders()).containsExactly(leader);
        assertThat(leader.lastAcquiredTerm()).isEqualTo(term);
        assertThat(leader.events("leadership-lost").stream().filter(l -> l.path("term").asLong() == term)).isEmpty();
        await().atMost(STEP).untilAsserted(() -> assertThat(get(leader, "/cluster/status").path("members"))
                .hasSize(NODES).allSatisfy(m -> assertThat(m.path("state").asText()).isEqualTo("active")));
    }

    /** The leader record in the file, if it has one for the group. */
    private Optional<JsonNode> record() {
        try {
            JsonNode group = MAPPER.readTree(Files.readAllBytes(store)).path("groups").path(GROUP);
            return group.isObject() ? Optional.of(group) : Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private JsonNode get(NodeProcess node, String path) {
        try {
            return MAPPER.readTree(text(node, path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String text(NodeProcess node, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(apiUrl.get(node) + path))
                .timeout(Duration.ofSeconds(5)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(node.describe(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
