package dev.baton.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import java.time.Duration;

/**
 * Three elections of one group on an in-memory store for the leader-only tests: a leader registered with an API
 * address, a follower that knows it, and a node of another group that has never seen a leader.
 */
final class GateCluster implements AutoCloseable {

    static final String LEADER_URL = "http://leader.internal:8001";

    final Election leader;
    final Election follower;
    final Election leaderless;

    GateCluster() throws Exception {
        InMemoryStore store = new InMemoryStore();
        leader = Baton.election(store).group("gate").node(NodeInfo.of("L", "leader").withApiAddress(LEADER_URL + "/"))
                .config(ElectionConfig.fast()).build();
        leader.start();
        assertThat(leader.awaitElected(Duration.ofSeconds(10))).isTrue();
        follower = Baton.election(store).group("gate").node(NodeInfo.of("F", "follower"))
                .config(ElectionConfig.fast()).build();
        follower.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.leader().isPresent()
                && follower.membership().member("L").join().isPresent());
        leaderless = Baton.election(store).group("nobody-started-this").node(NodeInfo.of("N", "none"))
                .config(ElectionConfig.fast()).build();
    }

    @Override
    public void close() {
        follower.close();
        leader.close();
        leaderless.close();
    }
}
