package dev.baton.server;

import static dev.baton.server.ServerlessProcessChecks.assertNoTermHasTwoLeaders;
import static dev.baton.server.ServerlessProcessChecks.freePorts;
import static dev.baton.server.ServerlessProcessChecks.sendRaw;
import static dev.baton.server.ServerlessProcessChecks.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.RejectReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five {@code baton node --backend peer} processes on loopback, fast profile, with a shared secret, data directories
 * and the HTTP API: the serverless backend as an operator runs it. One scenario, so the five JVMs start once:
 *
 * <ol>
 *   <li>they elect exactly one leader, and every node names the same leader and term (JSON lines and
 *       {@code /cluster/status});</li>
 *   <li>a bad peer (random bytes, a frame over the size cap, a peer without the secret, a peer with a wrong secret)
 *       hits the leader's peer port: each connection is refused and counted or logged, and the cluster keeps its
 *       leader and term;</li>
 *   <li>a follower frozen with SIGSTOP is marked unreachable, then removed, by the leader; thawed, it rejoins;</li>
 *   <li>the leader killed with SIGKILL is replaced by another node under a higher term.</li>
 * </ol>
 *
 * <p>Across everything every node printed, no term ever names two leaders. Bounds are generous correctness bounds
 * for a loaded machine; the failover time itself is measured by the benchmarks, never asserted here.
 */
class PeerClusterProcessTest {

    private static final int NODES = 5;
    private static final String GROUP = "peer-test";
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration STEP = Duration.ofSeconds(20);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path temp;

    private final NodeGroup nodes = new NodeGroup();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<NodeProcess, String> peerAddress = new HashMap<>();
    private final Map<NodeProcess, String> apiUrl = new HashMap<>();

    @AfterEach
    void stopEverything() {
        nodes.close();
    }

    @Test
    void fivePeerNodesElectOneLeaderShrugOffABadPeerEvictAFrozenFollowerAndFailOver() throws Exception {
        byte[] secret = "a shared secret of the five test nodes".getBytes(StandardCharsets.UTF_8);
        startCluster(secret);

        NodeProcess first = awaitOneLeaderSeenByAll(nodes.all());
        long firstTerm = first.lastAcquiredTerm();
        assertStatusOfEveryNodeNames(first, firstTerm, nodes.all());
        assertTheHttpApiKnowsItHasNoStore(first);

        badPeersAreTurnedAway(first, firstTerm, secret);

        frozenFollowerIsRemovedAndRejoins(first);

        first.sigkill();
        Instant killedAt = Instant.now();
        List<NodeProcess> survivors = nodes.all().stream().filter(node -> node != first).toList();
        NodeProcess second = awaitOneLeaderSeenByAll(survivors);
        assertThat(second).isNotSameAs(first);
        assertThat(second.lastAcquiredTerm()).as("the successor's term").isGreaterThan(firstTerm);

        assertNoTermHasTwoLeaders(nodes.all());
        LeadershipHistory.of(nodes.all(), Map.of(first.name(), killedAt)).assertOneLeaderAtATimeWithRisingTerms();
        assertThat(nodes.all()).allSatisfy(node -> assertThat(node.notJson()).as(node.name()).isEmpty());
    }

    private void startCluster(byte[] secret) throws IOException {
        Path secretFile = Files.write(temp.resolve("secret"), secret);
        List<Integer> ports = freePorts(2 * NODES);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            peers.add("127.0.0.1:" + ports.get(i));
        }
        // Three seeds: nodes 4 and 5 join through them, as non-seed nodes do.
        String seeds = String.join(",", peers.subList(0, 3));
        for (int i = 0; i < NODES; i++) {
            String name = "p" + (i + 1);
            String httpAddress = "127.0.0.1:" + ports.get(NODES + i);
            NodeProcess node = nodes.run(name, List.of("node", "--backend", "peer", "--group", GROUP,
                    "--profile", "fast", "--listen", peers.get(i), "--seeds", seeds,
                    "--cluster-size", Integer.toString(NODES), "--secret-file", secretFile.toString(),
                    "--data-dir", temp.resolve(name).toString(), "--identifier", name, "--http", httpAddress));
            peerAddress.put(node, peers.get(i));
            apiUrl.put(node, "http://" + httpAddress);
        }
    }

    /** Waits until exactly one living node leads and every node in {@code group} names it, with its term. */
    /**
     * Waits until exactly one node of {@code group} leads and every node of it names that leader. Only nodes of the
     * group count: a node just killed may not have been reaped yet, and its last line still says it leads.
     */
    private NodeProcess awaitOneLeaderSeenByAll(List<NodeProcess> group) {
        await().atMost(STARTUP).pollInterval(Duration.ofMillis(50)).until(() -> {
            List<NodeProcess> leaders = leadersAmong(group);
            if (leaders.size() != 1) {
                return false;
            }
            NodeProcess leader = leaders.get(0);
            long term = leader.lastAcquiredTerm();
            return group.stream().allMatch(node -> node.isAlive() && node.last("leader-changed")
                    .filter(line -> peerAddress.get(leader).equals(line.path("leader").asText())
                            && line.path("term").asLong() == term)
                    .isPresent());
        });
        return leadersAmong(group).get(0);
    }

    private List<NodeProcess> leadersAmong(List<NodeProcess> group) {
        return nodes.leaders().stream().filter(group::contains).toList();
    }

    private void assertStatusOfEveryNodeNames(NodeProcess leader, long term, List<NodeProcess> group) {
        // Every node's own line named the leader already; its status may still lag a moment (or, on a loaded
        // machine, a follower may briefly miss a heartbeat and know no leader), so each is asked until it agrees.
        for (NodeProcess node : group) {
            await().atMost(STEP).untilAsserted(() -> {
                JsonNode status = get(node, "/cluster/status").body();
                assertThat(status.path("leader_id").asText()).as(node.name()).isEqualTo(peerAddress.get(leader));
                assertThat(status.path("term").asLong()).as(node.name()).isEqualTo(term);
                assertThat(status.path("node_id").asText()).as(node.name()).isEqualTo(peerAddress.get(node));
                assertThat(status.path("backend").asText()).as(node.name()).startsWith("peer ");
            });
        }
        await().atMost(STEP).untilAsserted(() -> {
            JsonNode status = get(leader, "/cluster/status").body();
            assertThat(status.path("is_leader").asBoolean()).isTrue();
            assertThat(status.path("members")).hasSize(NODES)
                    .allSatisfy(member -> assertThat(member.path("state").asText()).isEqualTo("active"));
            assertThat(get(leader, "/cluster/health").status()).isEqualTo(200);
        });
    }

    /** The store-only endpoints say why they cannot work; the event log is the node's own. */
    private void assertTheHttpApiKnowsItHasNoStore(NodeProcess leader) {
        Answer items = get(leader, "/work/items");
        assertThat(items.status()).isEqualTo(501);
        assertThat(items.body().path("error").asText()).isEqualTo("no_shared_store");
        assertThat(items.body().path("message").asText()).contains("redis://").contains("postgresql://");
        Answer events = get(leader, "/cluster/events");
        assertThat(events.status()).isEqualTo(200);
        assertThat(events.body().path("source").asText()).isEqualTo("node");
        assertThat(events.body().path("events").toString()).contains("leader_elected");
    }

    private void badPeersAreTurnedAway(NodeProcess leader, long term, byte[] secret) throws Exception {
        PeerAddress target = PeerAddress.parse(peerAddress.get(leader));
        Map<String, Double> before = rejected(leader);

        Random random = new Random(20_261_121L);
        byte[] garbage = new byte[4096];
        random.nextBytes(garbage);
        sendRaw(target, garbage);
        byte[] fakeGreet = new byte[105];
        random.nextBytes(fakeGreet);
        ByteBuffer.wrap(fakeGreet).putInt(101).put((byte) 1); // a plausible length and greet type, then noise
        sendRaw(target, fakeGreet);
        await().atMost(STEP).until(() -> total(rejected(leader)) >= total(before) + 2);

        sendRaw(target, ByteBuffer.allocate(5 + 65_536).putInt(2 << 20).put((byte) 5).array()); // 2 MiB frame
        await().atMost(STEP).until(() -> rejected(leader).get("oversized_before_handshake")
                > before.get("oversized_before_handshake"));

        try (NettyTransport<QuorumMessage> noSecret = stranger(null)) {
            noSecret.send(target, new QuorumMessage.LeaderQuery(0));
            await().atMost(STEP).until(() -> rejected(leader).get("unauthenticated")
                    > before.get("unauthenticated"));
        }
        byte[] wrong = secret.clone();
        wrong[0] ^= 1;
        long closedByPeersBefore = leader.stderr().lines().filter(line -> line.contains("Peer closed connection"))
                .count();
        try (NettyTransport<QuorumMessage> wrongSecret = stranger(wrong)) {
            wrongSecret.send(target, new QuorumMessage.LeaderQuery(0));
            // The connector checks the acceptor's proof first: the stranger refuses, and the node logs why.
            await().atMost(STEP).until(() -> wrongSecret.stats().rejected(RejectReason.UNAUTHENTICATED) >= 1
                    && leader.stderr().lines().filter(line -> line.contains("Peer closed connection")
                            && line.contains("unauthenticated")).count() > closedByPeersBefore);
            assertThat(wrongSecret.stats().messagesSent()).as("nothing reached the node").isZero();
        }

        assertThat(leader.isAlive()).isTrue();
        assertThat(nodes.leaders()).containsExactly(leader);
        assertThat(leader.lastAcquiredTerm()).isEqualTo(term);
        assertThat(leader.events("leadership-lost")).isEmpty();
        assertStatusOfEveryNodeNames(leader, term, nodes.all());
    }

    private void frozenFollowerIsRemovedAndRejoins(NodeProcess leader) {
        NodeProcess frozen = nodes.all().stream().filter(node -> node != leader).reduce((a, b) -> b).orElseThrow();
        String id = peerAddress.get(frozen);
        int removalsBefore = memberLines(leader, "member-removed", id).size();
        frozen.sigstop();
        try {
            await().atMost(STEP).pollInterval(Duration.ofMillis(50))
                    .until(() -> memberLines(leader, "member-removed", id).size() > removalsBefore);
            assertThat(memberLines(leader, "member-state-changed", id))
                    .as("the leader marks a silent member unreachable before it removes it\n%s", leader.describe())
                    .anySatisfy(line -> assertThat(line.path("to").asText()).isEqualTo("UNREACHABLE"));
        } finally {
            frozen.sigcont();
        }
        await().atMost(STEP).untilAsserted(() -> assertThat(get(leader, "/cluster/status").body().path("members"))
                .as("members after %s was thawed", frozen.name())
                .anySatisfy(member -> {
                    assertThat(member.path("node_id").asText()).isEqualTo(id);
                    assertThat(member.path("state").asText()).isEqualTo("active");
                }));
        assertThat(nodes.leaders()).containsExactly(leader);
    }

    private static List<JsonNode> memberLines(NodeProcess node, String event, String member) {
        return node.events(event).stream().filter(line -> member.equals(line.path("member").asText())).toList();
    }

    /** A transport of the cluster's name on a free port, with {@code secret} (or none): a stranger to the nodes. */
    private static NettyTransport<QuorumMessage> stranger(byte[] secret) {
        NettyTransport.Builder<QuorumMessage> builder = NettyTransport.builder(Quorum.codec())
                .listen("127.0.0.1", 0).clusterName(GROUP);
        if (secret != null) {
            builder.sharedSecret(secret);
        }
        NettyTransport<QuorumMessage> transport = builder.build();
        transport.setHandler((from, message) -> { });
        return transport.start();
    }

    /** The leader's {@code baton_peer_connections_rejected_total} by reason, from {@code /metrics}. */
    private Map<String, Double> rejected(NodeProcess node) {
        return ServerlessProcessChecks.rejected(getText(node, "/metrics"));
    }

    private record Answer(int status, JsonNode body) {
    }

    private Answer get(NodeProcess node, String path) {
        HttpResponse<String> response = send(node, path);
        try {
            return new Answer(response.statusCode(), MAPPER.readTree(response.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String getText(NodeProcess node, String path) {
        return send(node, path).body();
    }

    private HttpResponse<String> send(NodeProcess node, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(apiUrl.get(node) + path))
                .timeout(Duration.ofSeconds(5)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(node.describe(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
