package dev.baton.bench.failover;

import dev.baton.testkit.EtcdCluster;
import java.util.stream.Collectors;

/**
 * A three-member etcd cluster ({@link EtcdCluster}, etcd's default raft timing: 100 ms heartbeats, 1 s election
 * timeout). Its failover is a SIGKILL of the member that leads the raft group, and an election among the other two;
 * the killed member then restarts on its data and rejoins.
 *
 * <p>etcd reports what is left of a lease in whole seconds, so the scenario takes a crashed leader's lease to end a
 * TTL after its last granted call was sent ({@link #coarseRemaining()}).
 */
final class EtcdTopology implements StoreTopology {

    private final EtcdCluster etcd;
    private int killed = -1;

    private EtcdTopology(EtcdCluster etcd) {
        this.etcd = etcd;
    }

    static StoreTopology start() {
        return new EtcdTopology(EtcdCluster.start());
    }

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String describe() {
        return "etcd: three members (heartbeat 100 ms, election timeout 1 s)";
    }

    @Override
    public String failoverNote() {
        return "SIGKILL of the etcd leader; the other two members elect one";
    }

    @Override
    public String uri() {
        return "etcd://" + etcd.clientEndpoints().stream().map(e -> e.substring(e.indexOf("//") + 2))
                .collect(Collectors.joining(","));
    }

    @Override
    public boolean coarseRemaining() {
        return true;
    }

    @Override
    public void killPrimary() {
        killed = etcd.killLeader();
    }

    @Override
    public void recover() {
        etcd.awaitLeader();
    }

    @Override
    public void restore() {
        if (killed < 0) {
            return;
        }
        etcd.restartMember(killed);
        killed = -1;
        etcd.awaitLeader();
    }

    @Override
    public void close() {
        etcd.close();
    }
}
