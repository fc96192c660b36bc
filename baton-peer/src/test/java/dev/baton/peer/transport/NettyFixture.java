package dev.baton.peer.transport;

import dev.baton.peer.testing.TestMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Starts transports on free loopback ports and closes every one after the test. */
final class NettyFixture implements AfterEachCallback {

    static final String CLUSTER = "test-cluster";

    private final List<NettyTransport<TestMessage>> transports = new ArrayList<>();

    NettyTransport.Builder<TestMessage> builder() {
        return NettyTransport.builder(TestMessage.CODEC)
                .listen("127.0.0.1", 0)
                .clusterName(CLUSTER)
                .connectTimeout(Duration.ofSeconds(1))
                .handshakeTimeout(Duration.ofSeconds(2));
    }

    /** A started transport with an {@link Inbox} as handler. */
    Node start() {
        return start(b -> b);
    }

    Node start(UnaryOperator<NettyTransport.Builder<TestMessage>> tweak) {
        NettyTransport<TestMessage> transport = tweak.apply(builder()).build();
        Inbox inbox = new Inbox();
        transport.setHandler(inbox);
        track(transport).start();
        return new Node(transport, inbox);
    }

    NettyTransport<TestMessage> track(NettyTransport<TestMessage> transport) {
        synchronized (transports) {
            transports.add(transport);
        }
        return transport;
    }

    record Node(NettyTransport<TestMessage> transport, Inbox inbox) {
        PeerAddress address() {
            return transport.local();
        }

        void send(Node to, TestMessage message) {
            transport.send(to.address(), message);
        }

        TransportStats stats() {
            return transport.stats();
        }

        long openConnections() {
            TransportStats s = transport.stats();
            return s.connectionsOpened() - s.connectionsClosed();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        synchronized (transports) {
            transports.forEach(NettyTransport::close);
            transports.clear();
        }
    }
}
