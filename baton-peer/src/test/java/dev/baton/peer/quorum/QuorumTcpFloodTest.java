package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.LeaderInfo;
import dev.baton.core.NodeInfo;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.RejectReason;
import dev.baton.peer.transport.TransportStats;
import io.netty.buffer.PooledByteBufAllocator;
import dev.baton.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader flooded with connections that each announce a 1 MiB frame and send all but its last byte keeps its
 * leadership and its term, and holds almost none of what the flood sent: before the handshake a frame may be 4 KiB,
 * and at most {@code maxPendingHandshakes} strangers are in their handshake at once.
 */
class QuorumTcpFloodTest {

    private static final byte[] SECRET = "a shared secret of 32 bytes......".getBytes(StandardCharsets.UTF_8);
    private static final int FLOOD = 200;
    private static final int FRAME = 1 << 20;
    private static final int PENDING_CAP = 64;

    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    @Timeout(120)
    void aLeaderFloodedWithPartialLargeFramesKeepsItsLeadershipAndTerm() throws Exception {
        List<PeerAddress> addresses = new ArrayList<>();
        for (int port : LoopbackPorts.free(3)) {
            addresses.add(PeerAddress.of("127.0.0.1", port));
        }
        QuorumConfig config = QuorumConfig.fast().clusterSize(3).seeds(addresses).build();
        List<QuorumElection> nodes = new ArrayList<>();
        List<NettyTransport<QuorumMessage>> transports = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            NettyTransport<QuorumMessage> transport = NettyTransport.builder(Quorum.codec())
                    .listen(addresses.get(i)).clusterName("flood-test").sharedSecret(SECRET)
                    .handshakeTimeout(Duration.ofSeconds(30)) // the cap, not the deadline, turns the flood away
                    .build();
            open.add(transport);
            transport.start();
            transports.add(transport);
            QuorumElection election = Quorum.election(transport).group("flood-test").config(config)
                    .node(NodeInfo.of("ignored", "node-" + i)).build();
            open.add(election);
            election.start();
            nodes.add(election);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.stream().filter(QuorumElection::isLeader).count() == 1
                && nodes.stream().allMatch(n -> n.leader().isPresent()));
        QuorumElection leader = nodes.stream().filter(QuorumElection::isLeader).findFirst().orElseThrow();
        LeaderInfo before = leader.leader().orElseThrow();
        NettyTransport<QuorumMessage> target = transports.get(nodes.indexOf(leader));
        long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

        long peakDirect = flood(target);

        TransportStats stats = target.stats();
        assertThat(peakDirect - directBefore).as("direct memory the flood made the nodes hold (%s)", stats)
                .isLessThan(32L << 20);
        await().untilAsserted(() -> assertThat(target.stats().rejected(RejectReason.TOO_MANY_PENDING)
                + target.stats().rejected(RejectReason.OVERSIZED_BEFORE_HANDSHAKE)).isGreaterThanOrEqualTo(FLOOD));
        assertThat(target.stats().rejected(RejectReason.TOO_MANY_PENDING))
                .as("connections beyond the cap are refused").isGreaterThanOrEqualTo(FLOOD - PENDING_CAP);
        assertThat(leader.isLeader()).isTrue();
        assertThat(nodes).allSatisfy(n -> assertThat(n.leader()).contains(before));
        assertThat(nodes.stream().filter(QuorumElection::isLeader).toList()).containsExactly(leader);
    }

    /**
     * Opens {@link #FLOOD} connections and waits until the node has accepted them all, then on each announces a 1 MiB DATA frame and sends all of it but the last
     * byte; returns the highest direct memory in use seen meanwhile. Closes every connection before it returns.
     */
    private static long flood(NettyTransport<QuorumMessage> node) throws IOException {
        PeerAddress target = node.local();
        long accepted = node.stats().connectionsOpened();
        byte[] frame = ByteBuffer.allocate(4 + FRAME - 1).putInt(FRAME).put((byte) 5).array();
        List<Socket> sockets = new ArrayList<>();
        long peak = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        try {
            for (int i = 0; i < FLOOD; i++) {
                sockets.add(new Socket(target.host(), target.port()));
            }
            await().until(() -> node.stats().connectionsOpened() >= accepted + FLOOD);
            for (Socket socket : sockets) {
                try {
                    OutputStream out = socket.getOutputStream();
                    out.write(frame);
                    out.flush();
                } catch (IOException e) {
                    // Refused or closed by the node: what the limits are for.
                }
                peak = Math.max(peak, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory());
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        return peak;
    }

}
