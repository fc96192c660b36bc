package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.bully.BullyElection;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --leader-store redis://…} and {@code postgresql://…}: three bully nodes in this JVM, each with its own
 * connection that {@link LeaderStores} opened, on a private Redis and a private PostgreSQL; the first founds the
 * group, the others find it through the server, and the record the server holds names the leader and its term.
 */
class BullyServerLeaderStoresTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void threeBullyNodesFindTheirLeaderThroughRedis() throws Exception {
        TestBackend redis = TestBackend.redis();
        resources.add(redis);
        threeNodesFindTheirLeaderThrough(redis::uri);
    }

    @Test
    void threeBullyNodesFindTheirLeaderThroughPostgresql() throws Exception {
        TestBackend postgres = TestBackend.postgres();
        resources.add(postgres);
        threeNodesFindTheirLeaderThrough(postgres::uri);
    }

    private void threeNodesFindTheirLeaderThrough(Supplier<String> uri) throws Exception {
        String group = "bully-on-server";
        List<PeerAddress> addresses = ServerlessProcessChecks.freePorts(3).stream()
                .map(port -> PeerAddress.of("127.0.0.1", port)).toList();
        List<BullyElection> nodes = new ArrayList<>();
        for (PeerAddress address : addresses) {
            LeaderRecordStore store = LeaderStores.open(uri.get(), group);
            resources.add(store);
            BullyElection election = Bully.tcp(address).group(group).config(BullyConfig.fast().build())
                    .leaderStore(store).node(NodeInfo.of("ignored", "n" + address.port())).build();
            resources.add(election);
            nodes.add(election);
            election.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> election.leader().isPresent());
        }

        assertThat(nodes).extracting(BullyElection::processId).containsExactly(1L, 2L, 3L);
        try (LeaderRecordStore own = LeaderStores.open(uri.get(), group)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Optional<LeaderRecord> record = own.readLeader(group).join();
                assertThat(record).isPresent();
                BullyElection leader = nodes.stream().filter(BullyElection::isLeader).findFirst().orElseThrow();
                long term = leader.leadership().orElseThrow().term();
                assertThat(record.get()).isEqualTo(new LeaderRecord(group, term, leader.nodeId(),
                        leader.processId(), leader.nodeId()));
                assertThat(nodes).allSatisfy(n -> assertThat(n.leader())
                        .contains(new LeaderInfo(leader.nodeId(), term)));
            });
        }
    }
}
