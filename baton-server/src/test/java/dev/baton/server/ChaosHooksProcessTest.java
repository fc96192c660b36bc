package dev.baton.server;

import static dev.baton.server.ServerlessProcessChecks.freePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.server.chaos.FenceResource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton node --chaos-hooks} as the fault harness drives it: the real-clock stamps on the lines it prints, and
 * the commands it reads from stdin. Three scenarios, each a few seconds of node processes.
 */
class ChaosHooksProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final NodeGroup nodes = new NodeGroup();

    @AfterEach
    void stopNodes() {
        nodes.close();
    }

    @Test
    void aStoreNodeStampsItsLinesOnTheRealClockAndAnswersBadCommandsWithAnError() {
        NodeProcess node = nodes.start("solo", "--backend", "memory", "--group", "g", "--profile", "fast",
                "--fenced-writes", "50ms", "--chaos-hooks", "--clock-rate", "1.01");
        await().atMost(WAIT).until(() -> node.events("fenced-write").size() >= 3);

        node.send("");
        node.send("crash everything");
        node.send("partition 127.0.0.1:1");
        await().atMost(WAIT).until(() -> node.events("error").size() >= 2);

        assertThat(node.lines()).as(node.describe()).allSatisfy(line ->
                assertThat(line.path("mono").isIntegralNumber()).as("mono on %s", line).isTrue());
        JsonNode acquired = node.last("leadership-acquired").orElseThrow();
        long mono = acquired.path("mono").asLong();
        long since = acquired.path("since").asLong();
        JsonNode started = node.events("node-started").get(0);
        assertThat(since).as("the acquire was sent after the node started and before it was granted")
                .isBetween(started.path("mono").asLong(), mono);
        List<JsonNode> deadlines = node.events("valid-until");
        assertThat(deadlines).as("the deadline the term began with, and each renewal's").isNotEmpty()
                .allSatisfy(valid -> {
                    assertThat(valid.path("term").asLong()).isEqualTo(acquired.path("term").asLong());
                    assertThat(valid.path("deadline").asLong()).isGreaterThan(valid.path("mono").asLong());
                });
        assertThat(deadlines.get(0).path("mono").asLong()).as("recorded before the node was told it leads")
                .isBetween(since, mono);
        assertThat(node.events("fenced-write")).allSatisfy(write -> {
            assertThat(write.path("outcome").asText()).isEqualTo("ok");
            assertThat(write.path("accepted").asBoolean()).isTrue();
            assertThat(write.path("sent").asLong()).isGreaterThan(mono);
            assertThat(write.path("answered").asLong()).isGreaterThanOrEqualTo(write.path("sent").asLong());
        });
        List<JsonNode> errors = node.events("error");
        assertThat(errors.get(0).path("message").asText()).contains("unknown command 'crash everything'");
        assertThat(errors.get(1).path("message").asText()).contains("quorum and bully only");
        assertThat(started.path("chaosHooks").asBoolean()).isTrue();
        assertThat(node.notJson()).isEmpty();
    }

    @Test
    void aNodeOfSeveralGroupsNamesTheGroupOnEachLeadershipLine() {
        NodeProcess node = nodes.start("solo", "--backend", "memory", "--group", "g", "--profile", "fast",
                "--fenced-writes", "50ms", "--chaos-hooks", "--chaos-groups", "3");
        await().atMost(WAIT).until(() -> node.events("leadership-acquired").size() >= 3
                && node.events("fenced-write").size() >= 2);

        assertThat(node.events("leadership-acquired")).as(node.describe())
                .extracting(line -> line.path("group").asText()).containsExactlyInAnyOrder("g", "g-2", "g-3");
        assertThat(node.events("valid-until")).extracting(line -> line.path("group").asText())
                .contains("g", "g-2", "g-3");
        assertThat(node.events("fenced-write")).as("the first group's writes only")
                .allSatisfy(write -> assertThat(write.path("group").asText()).isEqualTo("g"));
        assertThat(node.lines()).as("the other groups print their leadership lines and errors only")
                .filteredOn(line -> line.path("group").asText().startsWith("g-"))
                .extracting(line -> line.path("event").asText())
                .isSubsetOf("leadership-acquired", "leadership-lost", "valid-until", "error");
        assertThat(node.notJson()).isEmpty();
    }

    @Test
    void aStoreNodeHoldsItsNextRenewalBackUntilToldToDeliverIt() {
        NodeProcess node = nodes.start("solo", "--backend", "memory", "--group", "g", "--profile", "fast",
                "--chaos-hooks");
        await().atMost(WAIT).until(() -> node.last("leadership-acquired").isPresent());

        node.send("straggle hurry");
        node.send("deliver");
        node.send("straggle renew");
        await().atMost(WAIT).until(() -> node.events("chaos-command").size() >= 2);
        // The held renewal times out while later ones pass: the leadership goes on, and the late one is delivered.
        await().atMost(WAIT).until(() -> node.events("valid-until").size() >= 3);
        node.send("deliver");
        await().atMost(WAIT).until(() -> node.events("chaos-command").size() >= 3);

        List<JsonNode> commands = node.events("chaos-command");
        assertThat(commands.get(0).path("delivered").asBoolean(true)).as("nothing was held yet").isFalse();
        assertThat(commands.get(1).path("command").asText()).isEqualTo("straggle renew");
        assertThat(commands.get(2).path("delivered").asBoolean()).as(node.describe()).isTrue();
        assertThat(node.events("error").get(0).path("message").asText())
                .contains("'straggle hurry'", "acquire, renew or release");
        assertThat(node.events("leadership-lost")).as(node.describe()).isEmpty();
    }

    @Test
    void aPartitionedPeerLosesItsMajorityAndHealingRestoresALeaderThatWritesToTheFencedResource() throws Exception {
        try (FenceResource resource = FenceResource.start(true)) {
            List<Integer> ports = freePorts(2);
            String a = "127.0.0.1:" + ports.get(0);
            String b = "127.0.0.1:" + ports.get(1);
            NodeProcess first = peer(a, a + "," + b, resource);
            NodeProcess second = peer(b, a + "," + b, resource);
            await().atMost(WAIT).until(() -> nodes.leaders().size() == 1 && resource.admitted() > 0);
            NodeProcess leader = nodes.leaders().get(0);
            NodeProcess other = leader == first ? second : first;
            String otherAddress = leader == first ? b : a;
            int acquisitions = leader.events("leadership-acquired").size() + other.events("leadership-acquired").size();

            leader.send("partition " + otherAddress);

            await().atMost(WAIT).until(() -> leader.last("chaos-command").isPresent() && !leader.believesItLeads());
            JsonNode applied = leader.last("chaos-command").orElseThrow();
            assertThat(applied.path("partitioned").get(0).asText()).isEqualTo(otherAddress);
            assertThat(leader.last("leadership-lost").orElseThrow().path("mono").asLong())
                    .isGreaterThan(applied.path("mono").asLong());

            leader.send("heal");

            await().atMost(WAIT).until(() -> nodes.leaders().size() == 1
                    && first.events("leadership-acquired").size() + second.events("leadership-acquired").size()
                    > acquisitions);
            for (NodeProcess node : List.of(first, second)) {
                for (JsonNode acquired : node.events("leadership-acquired")) {
                    assertThat(acquired.path("since").asLong()).as(node.describe())
                            .isLessThanOrEqualTo(acquired.path("mono").asLong());
                    assertThat(node.events("valid-until")).as("the deadline of term %s", acquired.path("term"))
                            .anySatisfy(valid -> assertThat(valid.path("term")).isEqualTo(acquired.path("term")));
                }
                assertThat(node.events("fenced-write")).as(node.describe())
                        .allSatisfy(write -> assertThat(write.path("outcome").asText()).isIn("ok", "refused",
                                "unknown"));
            }
            assertThat(resource.admitted()).isPositive();
        }
    }

    @Test
    void aQuorumNodeWhoseFsyncFailsStopsTakingPartWhileItsMessagesWereMangled(@TempDir Path dataDirs)
            throws Exception {
        List<Integer> ports = freePorts(3);
        List<String> addresses = ports.stream().map(port -> "127.0.0.1:" + port).toList();
        List<NodeProcess> quorum = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            quorum.add(nodes.run(addresses.get(i), List.of("node", "--backend", "quorum", "--group", "chaos",
                    "--profile", "fast", "--listen", addresses.get(i), "--seeds", String.join(",", addresses),
                    "--cluster-size", "3", "--data-dir", dataDirs.resolve("n" + i).toString(), "--chaos-hooks")));
        }
        await().atMost(WAIT).until(() -> nodes.leaders().size() == 1);
        NodeProcess leader = nodes.leaders().get(0);
        NodeProcess failing = quorum.stream().filter(n -> n != leader).findFirst().orElseThrow();
        for (NodeProcess node : quorum) {
            node.send("duplicate 20");
        }
        failing.send("delay 30 " + String.join(",", addresses));
        failing.send("vote-log fail-next-fsync");
        failing.send("vote-log erase-everything");
        await().atMost(WAIT).until(() -> failing.events("chaos-command").size() == 3
                && !failing.events("error").isEmpty());

        // The leader goes; the next vote the failing node saves fails, so it stops: one node cannot elect.
        leader.sigkill();
        await().atMost(WAIT).until(() -> failing.events("error").stream().anyMatch(e -> e.path("message").asText()
                .contains("takes no further part in elections")));
        assertThat(failing.events("error").get(0).path("message").asText())
                .contains("'vote-log erase-everything': takes 'fail-next-fsync' or 'lose-next-write'");
        assertThat(failing.events("error")).anySatisfy(e -> assertThat(e.path("message").asText())
                .contains("Input/output error on fdatasync"));
        assertThat(failing.believesItLeads()).isFalse();
        for (NodeProcess node : quorum) {
            if (node != leader) {
                node.send("heal");
            }
        }
        await().atMost(WAIT).until(() -> failing.events("chaos-command").size() == 4);
        assertThat(failing.notJson()).isEmpty();
    }

    private NodeProcess peer(String listen, String seeds, FenceResource resource) {
        return nodes.run(listen, List.of("node", "--backend", "peer", "--group", "chaos", "--profile", "fast",
                "--listen", listen, "--seeds", seeds, "--cluster-size", "2", "--chaos-hooks", "--fenced-writes",
                "100ms", "--fenced-writes-to", resource.address()));
    }
}
