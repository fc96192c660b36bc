package dev.baton.bench.work;

import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.replica.ReplicaGroup;
import dev.baton.peer.replica.ReplicaMessage;
import dev.baton.peer.replica.ReplicatedWorkStore;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * One node of a serverless work cluster inside the benchmark's JVM, wired as {@code baton node --backend quorum
 * --workers} wires it: a quorum election on its own TCP transport, the replicated maps on a second one, and a
 * {@link WorkCluster} on them. {@link #crash()} stands for SIGKILL: the transports close first, so the node sends
 * nothing more (no resignation), then its work cluster closes its worker connections (as the operating system
 * closes a killed process's sockets) and its threads stop.
 */
final class ServerlessWorkNode {

    private final PeerAddress peer;
    private final NettyTransport<QuorumMessage> protocol;
    private final NettyTransport<ReplicaMessage> replicas;
    private final QuorumElection election;
    private final ReplicatedWorkStore store;
    private final WorkCluster cluster;

    private ServerlessWorkNode(String group, PeerAddress peer, List<PeerAddress> seeds, List<String> workers,
            LongConsumer acquired) throws IOException {
        this.peer = peer;
        this.protocol = NettyTransport.builder(Quorum.codec()).listen(peer).clusterName(group).build();
        this.replicas = NettyTransport.builder(ReplicatedWorkStore.codec())
                .listen(peer.host(), freePort()).clusterName(group).maxFrameSize(64 << 20).build().start();
        QuorumConfig config = QuorumConfig.fast().clusterSize(seeds.size()).seeds(seeds).build();
        NodeInfo self = NodeInfo.of(peer.format(), "bench-" + peer.port());
        this.election = Quorum.election(protocol).group(group).config(config)
                .node(self.withMetadata(ReplicaGroup.advertise(self.metadata(), replicas.local())))
                .releaseOnShutdown(false).build();
        election.addListener(event -> {
            if (event instanceof ElectionEvent.LeadershipAcquired) {
                acquired.accept(System.nanoTime());
            }
        }, Runnable::run);
        protocol.start();
        this.store = ReplicatedWorkStore.builder(group, ReplicaGroup.of(election, seeds.size()), replicas).build();
        this.cluster = WorkCluster.builder(election, store, store).workers(workers).config(WorkClusterConfig.fast())
                .build();
        store.start();
        cluster.start();
        election.start();
    }

    /** Starts a node on {@code peer}; {@code acquired} hears the moment (nanoTime) it gains leadership. */
    static ServerlessWorkNode start(String group, PeerAddress peer, List<PeerAddress> seeds, List<String> workers,
            LongConsumer acquired) throws IOException {
        return new ServerlessWorkNode(group, peer, seeds, workers, acquired);
    }

    PeerAddress peer() {
        return peer;
    }

    WorkCluster cluster() {
        return cluster;
    }

    QuorumElection election() {
        return election;
    }

    /** Like SIGKILL: nothing leaves the node after its transports closed; then the rest stops. */
    void crash() {
        protocol.close();
        replicas.close();
        stop();
    }

    /** Stops the node (graceful: a leader resigns). */
    void close() {
        stop();
        protocol.close();
        replicas.close();
    }

    private void stop() {
        cluster.close();
        election.close();
        store.close();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
