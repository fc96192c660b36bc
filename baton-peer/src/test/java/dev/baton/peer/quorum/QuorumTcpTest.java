package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.LoopbackPorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three quorum nodes over real TCP on loopback, with the driver's threads, system clock and data directories. */
class QuorumTcpTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes......".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dataDirs;

    private final List<QuorumElection> elections = new CopyOnWriteArrayList<>();
    private final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(QuorumElection::close);
    }

    @Test
    void threeNodesOverTcpElectHandOverAndRejoinFromTheirDataDirectories() throws Exception {
        List<PeerAddress> addresses = new ArrayList<>();
        for (int port : LoopbackPorts.free(3)) {
            addresses.add(PeerAddress.of("127.0.0.1", port));
        }
        QuorumConfig config = QuorumConfig.fast().clusterSize(3).seeds(addresses).build();
        List<QuorumElection> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            nodes.add(start(addresses.get(i), config, i));
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> leaders(nodes).size() == 1
                && nodes.stream().allMatch(n -> n.leader().isPresent()));
        QuorumElection first = leaders(nodes).get(0);
        long firstTerm = first.leadership().orElseThrow().term();
        assertThat(nodes).allSatisfy(n -> assertThat(n.leader()).contains(new LeaderInfo(first.nodeId(), firstTerm)));
        await().atMost(Duration.ofSeconds(5)).until(() -> first.status().join().members().stream()
                .filter(m -> m.state() == MemberState.ACTIVE).count() == 3);
        assertThat(first.membership().members().join()).extracting(NodeInfo::identifier)
                .containsExactlyInAnyOrder("node-0", "node-1", "node-2");

        long closedAt = System.nanoTime();
        first.close();
        List<QuorumElection> rest = nodes.stream().filter(n -> n != first).toList();
        await().atMost(Duration.ofSeconds(5)).until(() -> leaders(rest).size() == 1);
        Duration handOver = Duration.ofNanos(System.nanoTime() - closedAt);
        QuorumElection second = leaders(rest).get(0);
        assertThat(second.leadership().orElseThrow().term()).isGreaterThan(firstTerm);
        assertThat(handOver).as("a closing leader hands over without waiting for timeouts")
                .isLessThan(Duration.ofSeconds(1));

        int index = addresses.indexOf(first.address());
        QuorumElection again = start(first.address(), config, index);
        await().atMost(Duration.ofSeconds(10)).until(() -> again.leader().map(LeaderInfo::nodeId)
                .equals(Optional.of(second.nodeId())));
        assertThat(again.node().acceptor().highestVersion()).as("read back from its data directory")
                .isGreaterThanOrEqualTo(second.leadership().orElseThrow().term());
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(ElectionEvent.LeadershipAcquired.class));
    }

    private QuorumElection start(PeerAddress address, QuorumConfig config, int index) {
        QuorumElection election = Quorum.tcp(address)
                .group("tcp-test")
                .config(config)
                .node(NodeInfo.of("ignored", "node-" + index))
                .dataDir(dataDirs.resolve("node-" + index))
                .sharedSecret(SECRET)
                .build();
        elections.add(election);
        election.addListener(events::add);
        election.start();
        return election;
    }

    private static List<QuorumElection> leaders(List<QuorumElection> nodes) {
        return nodes.stream().filter(QuorumElection::isLeader).toList();
    }

}
