package dev.baton.peer.bully;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.MemberState;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.LeaderRecord;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bully nodes over real TCP on loopback, with the driver's threads and system clock, and a file leader store. */
class BullyTcpTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes......".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path directory;

    private final List<BullyElection> elections = new CopyOnWriteArrayList<>();
    private final List<FileLeaderStore> stores = new CopyOnWriteArrayList<>();
    private final List<ElectionEvent> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() {
        elections.forEach(BullyElection::close);
        stores.forEach(FileLeaderStore::close);
    }

    @Test
    void threeNodesFindEachOtherThroughTheFileHandOverOnCloseAndALateJoinerFindsTheNewLeader() throws Exception {
        List<PeerAddress> addresses = new ArrayList<>();
        for (int port : LoopbackPorts.free(4)) {
            addresses.add(PeerAddress.of("127.0.0.1", port));
        }
        BullyElection first = start(addresses.get(0), 0);
        await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
        BullyElection second = start(addresses.get(1), 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> second.processId() > 0);
        BullyElection third = start(addresses.get(2), 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> third.processId() > 0);
        assertThat(List.of(first.processId(), second.processId(), third.processId())).containsExactly(1L, 2L, 3L);
        await().atMost(Duration.ofSeconds(5)).until(() -> first.status().join().members().stream()
                .filter(m -> m.state() == MemberState.ACTIVE).count() == 3);
        assertThat(first.membership().members().join()).extracting(NodeInfo::identifier)
                .containsExactlyInAnyOrder("node-0", "node-1", "node-2");
        long firstTerm = first.leadership().orElseThrow().term();

        long closedAt = System.nanoTime();
        first.close();
        await().atMost(Duration.ofSeconds(5)).until(third::isLeader);
        Duration handOver = Duration.ofNanos(System.nanoTime() - closedAt);
        assertThat(handOver).as("a closing leader's members elect at once").isLessThan(Duration.ofSeconds(1));
        long secondTerm = third.leadership().orElseThrow().term();
        assertThat(secondTerm).isGreaterThan(firstTerm);
        await().atMost(Duration.ofSeconds(5)).until(() -> second.leader()
                .equals(Optional.of(new LeaderInfo(third.nodeId(), secondTerm))));

        BullyElection late = start(addresses.get(3), 3);
        await().atMost(Duration.ofSeconds(10)).until(() -> late.leader().map(LeaderInfo::nodeId)
                .equals(Optional.of(third.nodeId())));
        assertThat(late.processId()).isEqualTo(4);
        assertThat(stores.get(0).readLeader("tcp-test").join()).contains(
                new LeaderRecord("tcp-test", secondTerm, third.nodeId(), 3, third.nodeId()));
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(ElectionEvent.MemberJoined.class));
    }

    @Test
    void aStandaloneNodeFoundsItsGroupAtOnceWithoutLookingForALeader() throws Exception {
        try (BullyElection election = Bully.tcp(PeerAddress.of("127.0.0.1", freePort())).group("alone")
                .config(BullyConfig.defaults().build()).standalone().build()) {
            Instant before = Instant.now();
            election.start();
            // No join loop (that would take twelve random pauses of up to a second each).
            assertThat(election.awaitElected(Duration.ofSeconds(2))).isTrue();
            assertThat(election.processId()).isEqualTo(1);
            assertThat(election.leadership()).hasValueSatisfying(l -> assertThat(l.term())
                    .as("at least the wall clock in µs when it founded its group")
                    .isGreaterThanOrEqualTo(ChronoUnit.MICROS.between(Instant.EPOCH, before)));
            assertThat(election.leaderStore()).isEqualTo("standalone");
        }
    }

    private BullyElection start(PeerAddress address, int index) {
        FileLeaderStore store = new FileLeaderStore(directory.resolve("leader.json"));
        stores.add(store);
        BullyElection election = Bully.tcp(address)
                .group("tcp-test")
                .config(BullyConfig.fast().build())
                .leaderStore(store)
                .node(NodeInfo.of("ignored", "node-" + index))
                .sharedSecret(SECRET)
                .build();
        elections.add(election);
        election.addListener(events::add);
        election.start();
        return election;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
