package dev.baton.peer.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.ElectionEvent.ElectionError;
import dev.baton.core.MemberState;
import dev.baton.peer.quorum.QuorumMessage.LeaderKeepAlive;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.transport.MessageHandler;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.peer.transport.TransportStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One exception in a heartbeat tick must not end a node's heartbeat: the next tick still comes. */
class QuorumTickFailureTest {

    /**
     * A transport whose codec fails once on a keep-alive ({@link Transport#send} documents the exception), as a
     * message the codec cannot encode would; counts the keep-alives that went out.
     */
    private static final class FailingOnceTransport implements Transport<QuorumMessage> {
        private final Transport<QuorumMessage> delegate;
        boolean armed;
        int keepAlivesSent;

        FailingOnceTransport(Transport<QuorumMessage> delegate) {
            this.delegate = delegate;
        }

        @Override
        public PeerAddress local() {
            return delegate.local();
        }

        @Override
        public void send(PeerAddress to, QuorumMessage message) {
            if (message instanceof LeaderKeepAlive) {
                if (armed) {
                    armed = false;
                    throw new IllegalArgumentException("cannot encode " + message);
                }
                keepAlivesSent++;
            }
            delegate.send(to, message);
        }

        @Override
        public void setHandler(MessageHandler<QuorumMessage> handler) {
            delegate.setHandler(handler);
        }

        @Override
        public TransportStats stats() {
            return delegate.stats();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    @Test
    void aFollowerKeepsSendingKeepAlivesAfterATickThrows() {
        SimCluster cluster = new SimCluster(17, 3, 3, QuorumConfig.fast(), LinkConditions.instant(), false);
        PeerAddress n3 = cluster.addresses.get(2);
        cluster.startWithState(1, 2);
        cluster.advanceUntil(Duration.ofSeconds(10), () -> cluster.leaders().size() == 1);
        FailingOnceTransport transport = new FailingOnceTransport(cluster.network.transport(n3));
        SimCluster.Node follower = cluster.new Node(n3, SimCluster.savedState(), transport, 1);
        cluster.nodes.put(n3, follower);
        follower.election.start();
        cluster.advanceUntil(Duration.ofSeconds(10), () -> cluster.stateOf(n3) == MemberState.ACTIVE);

        transport.armed = true;
        cluster.advanceUntil(Duration.ofSeconds(5), () -> !transport.armed);
        int before = transport.keepAlivesSent;
        cluster.advance(cluster.config.ttlTimeout().multipliedBy(3));

        assertThat(transport.keepAlivesSent).as("keep-alives after the failed tick").isGreaterThan(before + 3);
        assertThat(cluster.stateOf(n3)).isEqualTo(MemberState.ACTIVE);
        assertThat(follower.events(ElectionError.class))
                .anySatisfy(error -> assertThat(error.message()).contains("heartbeat tick failed"));
    }
}
