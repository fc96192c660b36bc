package dev.baton.server.chaos;

import dev.baton.testkit.EtcdCluster;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A private three-member etcd cluster; every node is given all three members. Beside the node faults, one member
 * that does not lead, or the etcd leader itself, is killed and started again with its data on heal, or the etcd
 * leader is frozen (SIGSTOP: connections stay open, nothing is answered) and let run again on heal. The store stays
 * available through each with two members of three, and a lease's term must still rise and never be issued twice.
 */
final class EtcdTarget extends ReplicatedStoreTarget {

    private static final List<FaultKind> FAULTS = List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.ETCD_MEMBER_KILL, FaultKind.ETCD_LEADER_KILL, FaultKind.ETCD_LEADER_PAUSE);

    private final EtcdCluster etcd;
    private final String uri;
    private int killed = -1;
    private int paused = -1;

    EtcdTarget(StoreTimings timings) {
        super("etcd", FAULTS, timings);
        this.etcd = EtcdCluster.start();
        this.uri = "etcd://" + etcd.clientEndpoints().stream().map(e -> e.substring(e.indexOf("//") + 2))
                .collect(Collectors.joining(","));
    }

    @Override
    String storeUri(int index) {
        return uri;
    }

    /**
     * Kills the leader or a member that does not lead ({@code target} picks which of the two), or freezes the
     * leader.
     */
    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        int leader = etcd.awaitLeader();
        switch (fault) {
            case ETCD_LEADER_KILL -> killed = leader;
            case ETCD_MEMBER_KILL -> killed = (leader + 1 + Math.floorMod(target, 2)) % 3;
            case ETCD_LEADER_PAUSE -> paused = leader;
            default -> throw new IllegalArgumentException("not an etcd fault: " + fault);
        }
        if (killed >= 0) {
            etcd.killMember(killed);
        } else {
            etcd.pauseMember(paused);
        }
    }

    /** Starts the killed member again, or lets the frozen one run, and waits until the three agree on a leader. */
    @Override
    public void heal(FaultKind fault) {
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
        etcd.close();
    }
}
