package dev.baton.peer.quorum;

import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.ElectionEvent.LeadershipLost;
import dev.baton.core.ElectionEvent.LossReason;
import dev.baton.core.Leadership;
import dev.baton.peer.transport.PeerAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The safety invariants of the quorum protocol, checked against a {@link SimCluster} after every step:
 * <ol>
 *   <li>never two leaders of one version: every (version, leader) any node ever recognised (learned as decided, or
 *       acquired) is recorded, and a version never gets a second leader;</li>
 *   <li>at most one node holds a valid leadership at any instant, and (exclusion) when a node is told it leads, no
 *       leadership handed out before, to any node, crashed ones included, is still valid
 *       ({@link Leadership#isValid()});</li>
 *   <li>a leader is recognised by members only while it holds its majority: a follower whose acknowledged window
 *       names leader L of version v sees no other valid leader, and L itself (same incarnation) still holds v, unless
 *       L handed v over on purpose (a graceful step-down tells the members after it stopped) or stopped as a crashed
 *       node does (a failed save);</li>
 *   <li>the versions a member has seen never go down below what it saved (for as long as it keeps its saved state:
 *       not across a start without it, nor a torn write it detected);</li>
 *   <li>a node never acquires one version twice, across restarts too (a term is never reused).</li>
 * </ol>
 */
final class SafetyChecker {

    private final SimCluster cluster;
    private final Map<Long, PeerAddress> leaderOfVersion = new HashMap<>();
    private final Map<Long, Integer> incarnationOfVersion = new HashMap<>();
    private final Set<String> released = new HashSet<>();
    private final Map<SimCluster.Node, Integer> eventsSeen = new IdentityHashMap<>();
    private final Map<Object, Long> highestSaved = new IdentityHashMap<>();
    private final Map<PeerAddress, Long> lastAcquired = new HashMap<>();
    private final List<Leadership> handedOut = new ArrayList<>();
    private String exclusionBroken;
    private int acquisitions;

    SafetyChecker(SimCluster cluster) {
        this.cluster = cluster;
        cluster.grants.add(this::granted);
    }

    /** At the moment {@code node} is told it leads: every leadership handed out before must have ended. */
    private void granted(SimCluster.Node node, LeadershipAcquired acquired) {
        for (Leadership before : handedOut) {
            if (before.isValid() && exclusionBroken == null) {
                exclusionBroken = node.address + " was told it leads version " + acquired.term() + " while "
                        + before.nodeId() + "'s leadership of version " + before.term() + " was still valid (for "
                        + before.remaining().toMillis() + " ms more)";
            }
        }
        handedOut.add(acquired.leadership());
    }

    /** Leaderships acquired so far (to show that schedules really move leadership around). */
    int acquisitions() {
        return acquisitions;
    }

    Set<Long> versions() {
        return leaderOfVersion.keySet();
    }

    void check() {
        if (exclusionBroken != null) {
            fail(exclusionBroken);
        }
        for (SimCluster.Node node : cluster.nodes.values()) {
            scanEvents(node);
            if (!node.live()) {
                continue;
            }
            QuorumNode machine = node.node();
            long highest = machine.acceptor().highestVersion();
            long saved = highestSaved.merge(node.lineage(), node.acknowledgedHighest(), Math::max);
            if (highest < saved) {
                fail("versions went down on " + node.address + ": it saved " + saved + " and now has " + highest);
            }
            if (machine.leader() != null && machine.leaderVersion() > 0) {
                record(machine.leaderVersion(), machine.leader(), node);
            }
        }
        List<SimCluster.Node> leaders = cluster.leaders();
        if (leaders.size() > 1) {
            fail("two valid leaders at once: " + leaders);
        }
        for (SimCluster.Node node : cluster.live()) {
            PeerAddress recognised = node.node().recognisedLeader();
            if (recognised == null || recognised.equals(node.address)) {
                continue;
            }
            long version = node.node().leaderVersion();
            if (released.contains(recognised + "@" + version)) {
                continue;
            }
            for (SimCluster.Node leader : leaders) {
                if (!leader.address.equals(recognised) || leader.node().leaderVersion() != version) {
                    fail(node.address + " recognises " + recognised + " of version " + version + " while "
                            + leader.address + " holds a valid leadership of version " + leader.node().leaderVersion());
                }
            }
            SimCluster.Node claimed = cluster.node(recognised);
            Integer incarnation = incarnationOfVersion.get(version);
            if (claimed != null && claimed.live() && !claimed.stopped() && incarnation != null
                    && claimed.incarnation == incarnation && !(claimed.election.isLeader()
                    && claimed.node().leaderVersion() == version)) {
                fail(node.address + " recognises " + recognised + " of version " + version
                        + ", which no longer holds a valid leadership of it");
            }
        }
    }

    private void scanEvents(SimCluster.Node node) {
        List<ElectionEvent> events = node.events;
        int from = eventsSeen.getOrDefault(node, 0);
        for (int i = from; i < events.size(); i++) {
            ElectionEvent event = events.get(i);
            if (event instanceof LeadershipAcquired acquired) {
                acquisitions++;
                record(acquired.term(), node.address, node);
                Long previous = lastAcquired.put(node.address, acquired.term());
                if (previous != null && acquired.term() <= previous) {
                    fail(node.address + " acquired version " + acquired.term() + " after version " + previous);
                }
                incarnationOfVersion.put(acquired.term(), node.incarnation);
            } else if (event instanceof LeadershipLost lost && lost.reason() == LossReason.RELEASED) {
                released.add(node.address + "@" + lost.term());
            }
        }
        eventsSeen.put(node, events.size());
    }

    private void record(long version, PeerAddress leader, SimCluster.Node seenBy) {
        PeerAddress before = leaderOfVersion.putIfAbsent(version, leader);
        if (before != null && !before.equals(leader)) {
            fail("version " + version + " has two leaders: " + before + " and " + leader + " (seen by "
                    + seenBy.address + ")");
        }
    }

    private void fail(String message) {
        throw new AssertionError(message + "\n" + cluster.describe());
    }
}
