package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the process tests of the serverless backends ({@code peer}, {@code bully}) share. */
final class ServerlessProcessChecks {

    private static final Pattern REJECTED =
            Pattern.compile("baton_peer_connections_rejected_total\\{[^}]*reason=\"([a-z_]+)\"[^}]*} ([0-9.E]+)");

    private ServerlessProcessChecks() {
    }

    /** Distinct free loopback ports, held together while they are picked. */
    static List<Integer> freePorts(int count) throws IOException {
        return LoopbackPorts.free(count);
    }

    /** Writes {@code bytes} to a fresh connection to {@code target} and closes it; the node may hang up first. */
    static void sendRaw(PeerAddress target, byte[] bytes) {
        try (Socket socket = new Socket(target.host(), target.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
        } catch (IOException hungUp) {
            // The node closed the connection while the bytes were still arriving: that is the point.
        }
    }

    /** {@code baton_peer_connections_rejected_total} by reason, from the text of {@code /metrics}. */
    static Map<String, Double> rejected(String metrics) {
        Map<String, Double> counts = new HashMap<>();
        Matcher matcher = REJECTED.matcher(metrics);
        while (matcher.find()) {
            counts.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
        }
        assertThat(counts).as("rejection counters on /metrics").containsKeys("oversized", "unauthenticated");
        return counts;
    }

    static double total(Map<String, Double> counts) {
        return counts.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Every term any node printed with a leader (acquired, leader-changed, election-completed) names one node. */
    static void assertNoTermHasTwoLeaders(List<NodeProcess> nodes) {
        Map<Long, Set<String>> leadersByTerm = new TreeMap<>();
        for (NodeProcess node : nodes) {
            for (JsonNode line : node.lines()) {
                String event = line.path("event").asText();
                if (event.equals("leadership-acquired")) {
                    leadersByTerm.computeIfAbsent(line.path("term").asLong(), t -> new TreeSet<>())
                            .add(line.path("node").asText());
                } else if (line.hasNonNull("leader") && line.has("term")) {
                    leadersByTerm.computeIfAbsent(line.path("term").asLong(), t -> new TreeSet<>())
                            .add(line.path("leader").asText());
                }
            }
        }
        assertThat(leadersByTerm).as("leaders by term").isNotEmpty()
                .allSatisfy((term, leaders) -> assertThat(leaders).as("leaders of term %d", term).hasSize(1));
    }
}
