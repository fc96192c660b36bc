package dev.baton.server.chaos;

import dev.baton.testkit.EtcdCluster;
import dev.baton.testkit.FaultProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A private three-member etcd cluster; every node is given all three members. Beside the node faults, one member
 * that does not lead, or the etcd leader itself, is killed and started again with its data on heal, or the etcd
 * leader is frozen (SIGSTOP: connections stay open, nothing is answered) and let run again on heal. The store stays
 * available through each with two members of three, and a lease's term must still rise and never be issued twice.
 *
 * <p>Each node reaches each member through a {@link FaultProxy} of its own, so one node's link to the etcd leader can
 * hold what it is sent ({@code etcd-link-held}) while its other links carry on. jetcd spreads calls over the members
 * round robin, so some of the node's calls hang there, the node gives up on them and goes on through the other
 * members, and on heal the held ones reach etcd late: every lease operation must stay safe when it lands after the
 * calls its node made since.
 */
final class EtcdTarget extends ReplicatedStoreTarget {

    static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.ETCD_MEMBER_KILL, FaultKind.ETCD_LEADER_KILL, FaultKind.ETCD_LEADER_PAUSE,
            FaultKind.ETCD_LINK_HELD);

    private final EtcdCluster etcd;
    /** Per node, its links to members 0, 1 and 2. */
    private final Map<Integer, List<FaultProxy>> links = new ConcurrentHashMap<>();
    private int killed = -1;
    private int paused = -1;
    private FaultProxy held;

    EtcdTarget(StoreTimings timings) {
        super("etcd", FAULTS, timings);
        this.etcd = EtcdCluster.start();
    }

    /** The node's own links to the three members, made on first use. */
    @Override
    String storeUri(int index) {
        return "etcd://" + links.computeIfAbsent(index, i -> startLinks()).stream()
                .map(link -> link.host() + ":" + link.port()).collect(Collectors.joining(","));
    }

    private List<FaultProxy> startLinks() {
        List<FaultProxy> proxies = new ArrayList<>();
        try {
            for (String endpoint : etcd.clientEndpoints()) {
                URI member = URI.create(endpoint);
                proxies.add(FaultProxy.start(member.getHost(), member.getPort()));
            }
        } catch (RuntimeException e) {
            proxies.forEach(FaultProxy::close);
            throw e;
        }
        return List.copyOf(proxies);
    }

    /**
     * Kills the leader or a member that does not lead ({@code target} picks which of the two), freezes the leader,
     * or holds node {@code target}'s link to the leader.
     */
    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        int leader = etcd.awaitLeader();
        switch (fault) {
            case ETCD_LEADER_KILL -> killed = leader;
            case ETCD_MEMBER_KILL -> killed = (leader + 1 + Math.floorMod(target, 2)) % 3;
            case ETCD_LEADER_PAUSE -> paused = leader;
            case ETCD_LINK_HELD -> held = links.computeIfAbsent(target, i -> startLinks()).get(leader);
            default -> throw new IllegalArgumentException("not an etcd fault: " + fault);
        }
        if (killed >= 0) {
            etcd.killMember(killed);
        } else if (paused >= 0) {
            etcd.pauseMember(paused);
        } else {
            held.blackhole();
        }
    }

    /**
     * Starts the killed member again, lets the frozen one run, or lets the held link deliver what it holds, and waits
     * until the three members agree on a leader.
     */
    @Override
    public void heal(FaultKind fault) {
        if (held != null) {
            held.pass();
            held = null;
        }
        if (killed >= 0) {
            etcd.restartMember(killed);
            killed = -1;
        }
        if (paused >= 0) {
            etcd.resumeMember(paused);
            paused = -1;
        }
        etcd.awaitLeader();
    }

    @Override
    public void close() {
        try {
            links.values().forEach(proxies -> proxies.forEach(FaultProxy::close));
        } finally {
            etcd.close();
        }
    }
}
