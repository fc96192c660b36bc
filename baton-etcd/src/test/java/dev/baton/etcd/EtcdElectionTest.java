package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.NodeInfo;
import dev.baton.core.StoreElection;
import dev.baton.testkit.EtcdCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lease elections on a private three-member etcd cluster while its members fail: the etcd leader is killed, it comes
 * back, a follower member is killed, and each time the group goes on with one leader whose fenced writes the store
 * accepts, no term is ever granted to two nodes, and a handover with one member down issues a term above every
 * earlier one. Awaitility bounds are generous correctness bounds (an etcd election takes a second or two), never
 * performance claims.
 */
class EtcdElectionTest {

    private static final String GROUP = "etcd-members";
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private EtcdCluster etcd;
    private final List<Node> nodes = new ArrayList<>();

    @BeforeEach
    void startEtcd() {
        assumeTrue(EtcdCluster.whyUnavailable().isEmpty(), () -> EtcdCluster.whyUnavailable().orElseThrow());
        etcd = EtcdCluster.start();
    }

    @AfterEach
    void stopEverything() {
        nodes.forEach(Node::close);
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void oneLeaderPerTermThroughTheLossOfTheEtcdLeaderAndOfAFollowerMember() throws Exception {
        for (String id : List.of("a", "b", "c")) {
            nodes.add(new Node(EtcdTesting.uri(etcd), id));
        }
        long firstTerm = awaitWorkingLeader(0).term();

        int killedLeader = etcd.killLeader();
        int etcdLeader = etcd.awaitLeader();
        assertThat(etcdLeader).isNotEqualTo(killedLeader);
        long afterLeaderLoss = awaitWorkingLeader(firstTerm - 1).term();

        etcd.restartMember(killedLeader);
        etcd.awaitLeader();
        int follower = (etcd.leader() + 1) % 3;
        etcd.killMember(follower);
        Working afterFollowerLoss = awaitWorkingLeader(afterLeaderLoss - 1);

        // A handover with one member down: the leader steps away and another node is granted a higher term.
        afterFollowerLoss.node().close();
        Working handover = awaitWorkingLeader(afterFollowerLoss.term());
        long handedOver = handover.term();
        assertThat(handover.node()).isNotSameAs(afterFollowerLoss.node());

        Map<Long, Set<String>> holders = new HashMap<>();
        List<Long> granted = new ArrayList<>();
        for (Node node : nodes) {
            long previous = 0;
            for (ElectionEvent event : node.events) {
                if (event instanceof LeadershipAcquired acquired) {
                    long term = acquired.leadership().term();
                    assertThat(term).as("terms one node was granted rise").isGreaterThan(previous);
                    previous = term;
                    holders.computeIfAbsent(term, t -> new HashSet<>()).add(node.id);
                    granted.add(term);
                }
            }
        }
        assertThat(holders).as("holders by term").allSatisfy((term, ids) -> assertThat(ids).hasSize(1));
        assertThat(granted).as("every term granted").allMatch(term -> term <= handedOver).contains(handedOver);
        assertThat(write(handover.node(), firstTerm)).as("a write under the first term").isFalse();
    }

    @Test
    void aFrozenEtcdLeaderIsReplacedAndTheGroupGoesOnWithOneLeaderPerTerm() throws Exception {
        for (String id : List.of("a", "b", "c")) {
            nodes.add(new Node(EtcdTesting.uri(etcd), id));
        }
        long firstTerm = awaitWorkingLeader(0).term();

        int frozen = etcd.leader();
        etcd.pauseMember(frozen);
        try {
            // The frozen member holds its connections open and answers nothing: calls sent to it time out until
            // the client gives up on it, and the other two elect a leader and carry the group.
            // The leader seen here may lose its lease again while the client still gives up on the frozen member;
            // whoever leads next must hold a higher term either way.
            Working during = awaitWorkingLeader(firstTerm - 1);
            during.node().close();
            Working handedOver = awaitWorkingLeader(during.term());
            assertThat(handedOver.node()).isNotSameAs(during.node());
        } finally {
            etcd.resumeMember(frozen);
        }
        assertOneHolderPerTerm();
    }

    private void assertOneHolderPerTerm() {
        Map<Long, Set<String>> holders = new HashMap<>();
        for (Node node : nodes) {
            for (ElectionEvent event : node.events) {
                if (event instanceof LeadershipAcquired acquired) {
                    holders.computeIfAbsent(acquired.leadership().term(), t -> new HashSet<>()).add(node.id);
                }
            }
        }
        assertThat(holders).as("holders by term").allSatisfy((term, ids) -> assertThat(ids).hasSize(1));
    }

    /** A node that led under {@code term} and whose fenced write under it the store accepted. */
    private record Working(Node node, long term) {}

    /**
     * Waits until one node leads under a term above {@code above} and the store accepts its fenced write. Callers use
     * the node returned rather than asking again who leads: leadership may move on right after the wait.
     */
    private Working awaitWorkingLeader(long above) {
        Working[] seen = {null};
        await().atMost(SETTLE).ignoreExceptions().until(() -> {
            List<Node> leaders = nodes.stream().filter(n -> n.election.isLeader()).toList();
            if (leaders.size() != 1) {
                return false;
            }
            Node leader = leaders.get(0);
            long term = leader.election.leadership().orElseThrow().term();
            if (term > above && write(leader, term)) {
                seen[0] = new Working(leader, term);
                return true;
            }
            return false;
        });
        return seen[0];
    }

    private static boolean write(Node node, long term) throws Exception {
        return node.store.registers().fencedWrite(GROUP, "config", node.id, term,
                node.id.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS).accepted();
    }

    /** One node: its own client of every member, its own election, the events it saw. */
    private static final class Node {
        final String id;
        final EtcdStore store;
        final StoreElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        private boolean closed;

        Node(String uri, String id) {
            this.id = id;
            store = EtcdStore.connect(uri);
            election = Baton.election(store).group(GROUP).config(ElectionConfig.fast())
                    .node(NodeInfo.of(id, "it-" + id)).build();
            election.addListener(events::add);
            election.start();
        }

        void close() {
            if (!closed) {
                closed = true;
                election.close();
                store.close();
            }
        }
    }
}
