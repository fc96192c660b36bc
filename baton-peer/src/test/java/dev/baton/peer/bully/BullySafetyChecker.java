package dev.baton.peer.bully;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.Leadership;
import dev.baton.core.store.LeaderRecord;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The safety invariants of the bully protocol, checked against a {@link BullyCluster} after every step:
 * <ol>
 *   <li>never two leaders with the same term, anywhere: every term any process ever acquired is recorded with that
 *       process (address and incarnation), and no term gets a second one (so within one connected component there is
 *       at most one leader per term too);</li>
 *   <li>a process leads only a term the store gave it: the term it acquired is one the store accepted for its
 *       address;</li>
 *   <li>the leader store never goes back to a lower term;</li>
 *   <li>a process's acquisitions and losses alternate (no second acquisition before the loss of the first), and a
 *       process holds a valid leadership only of the term it last acquired.</li>
 * </ol>
 */
final class BullySafetyChecker {

    private final BullyCluster cluster;
    private final Map<Long, String> holderOfTerm = new HashMap<>();
    private final Map<BullyCluster.Node, Integer> eventsSeen = new IdentityHashMap<>();
    private final Map<BullyCluster.Node, Long> holding = new IdentityHashMap<>();
    private long highestStored;
    private int storeHistorySeen;
    private int acquisitions;

    BullySafetyChecker(BullyCluster cluster) {
        this.cluster = cluster;
    }

    /** Leaderships acquired so far (to show that schedules really move leadership around). */
    int acquisitions() {
        return acquisitions;
    }

    Map<Long, String> terms() {
        return holderOfTerm;
    }

    void check() {
        List<Long> history = cluster.store.termHistory();
        for (int i = storeHistorySeen; i < history.size(); i++) {
            long term = history.get(i);
            if (term < highestStored) {
                fail("the leader store went back from term " + highestStored + " to " + term);
            }
            highestStored = term;
        }
        storeHistorySeen = history.size();
        for (BullyCluster.Node node : cluster.nodes.values()) {
            scanEvents(node);
            if (!node.live()) {
                continue;
            }
            Leadership leadership = node.election.leadership().orElse(null);
            if (leadership != null) {
                Long held = holding.get(node);
                if (held == null || held != leadership.term()) {
                    fail(node.address + " holds a valid leadership of term " + leadership.term()
                            + " but last acquired " + held);
                }
            }
        }
    }

    private void scanEvents(BullyCluster.Node node) {
        int seen = eventsSeen.getOrDefault(node, 0);
        List<ElectionEvent> events = node.events;
        for (int i = seen; i < events.size(); i++) {
            ElectionEvent event = events.get(i);
            if (event instanceof LeadershipAcquired acquired) {
                onAcquired(node, acquired.term());
            } else if (event instanceof LeadershipLost lost) {
                Long held = holding.remove(node);
                if (held == null || held != lost.term()) {
                    fail(node.address + " lost term " + lost.term() + " but held " + held);
                }
            }
        }
        eventsSeen.put(node, events.size());
    }

    private void onAcquired(BullyCluster.Node node, long term) {
        acquisitions++;
        String holder = node.address + "#" + node.incarnation;
        String before = holderOfTerm.putIfAbsent(term, holder);
        if (before != null) {
            fail("term " + term + " acquired by " + holder + " and by " + before);
        }
        Long held = holding.put(node, term);
        if (held != null) {
            fail(holder + " acquired term " + term + " while still holding " + held);
        }
        LeaderRecord stored = cluster.store.record().orElse(null);
        boolean accepted = cluster.store.termHistory().contains(term);
        if (!accepted) {
            fail(holder + " acquired term " + term + ", which the store never accepted (store: " + stored + ")");
        }
    }

    private void fail(String message) {
        throw new AssertionError(message + " (seed " + cluster.seed + ")\n" + cluster.describe());
    }
}
