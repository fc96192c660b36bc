package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.transport.NettyFixture.Node;
import dev.baton.peer.transport.RawPeer.Frame;
import dev.baton.peer.transport.internal.FrameType;
import dev.baton.peer.transport.internal.Handshake;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Seed 003's "Node Handshake Conflict": two nodes that dial each other at once keep one connection. */
class NettyHandshakeTest {

    @RegisterExtension
    final NettyFixture fixture = new NettyFixture();

    @RepeatedTest(20)
    void simultaneousConnectKeepsExactlyOneConnectionAndLosesNothing() throws Exception {
        Node a = fixture.start(b -> b.workerThreads(2));
        Node b = fixture.start(x -> x.workerThreads(2));
        List<TestMessage> fromA = IntStream.range(0, 50).<TestMessage>mapToObj(TestMessage::ping).toList();
        List<TestMessage> fromB = IntStream.range(0, 50).<TestMessage>mapToObj(Pong::new).toList();
        CyclicBarrier together = new CyclicBarrier(2);
        Thread other = new Thread(() -> {
            arrive(together);
            fromB.forEach(m -> b.send(a, m));
        });
        other.start();
        arrive(together);
        fromA.forEach(m -> a.send(b, m));
        other.join();

        await().untilAsserted(() -> {
            assertThat(b.inbox().from(a.address())).containsExactlyElementsOf(fromA);
            assertThat(a.inbox().from(b.address())).containsExactlyElementsOf(fromB);
        });
        await().untilAsserted(() -> {
            assertThat(a.openConnections()).isEqualTo(1);
            assertThat(b.openConnections()).isEqualTo(1);
        });
        // Each side opened one connection and accepted the other's (or only one was opened): never more.
        assertThat(a.stats().connectionsOpened()).isBetween(1L, 2L);
        assertThat(a.stats().messagesDropped()).isZero();
        assertThat(b.stats().messagesDropped()).isZero();
        assertThat(a.stats().framesRejected() + b.stats().framesRejected()).isZero();

        // The kept connection carries everything that follows; nobody dials again.
        long openedBefore = a.stats().connectionsOpened() + b.stats().connectionsOpened();
        a.send(b, TestMessage.ping(99));
        b.send(a, new Pong(99));
        await().until(() -> b.inbox().size() == 51 && a.inbox().size() == 51);
        assertThat(a.stats().connectionsOpened() + b.stats().connectionsOpened()).isEqualTo(openedBefore);
    }

    @Test
    void theConnectionKeptIsTheOneOpenedByTheSmallerAddress() throws Exception {
        Node first = fixture.start();
        Node second = fixture.start();
        Node smaller = first.address().compareTo(second.address()) < 0 ? first : second;
        Node larger = smaller == first ? second : first;
        // Both dial, in the same instant as far as the network is concerned.
        larger.send(smaller, new Pong(1));
        smaller.send(larger, new Pong(2));
        await().until(() -> smaller.inbox().size() == 1 && larger.inbox().size() == 1);
        await().until(() -> smaller.openConnections() == 1 && larger.openConnections() == 1);

        // The survivor is the one the smaller node dialled: its local port is the smaller node's ephemeral port, so
        // the larger node's inbound connection is the only one left: a fresh send from the larger one opens nothing.
        long largerOpened = larger.stats().connectionsOpened();
        larger.send(smaller, new Pong(3));
        await().until(() -> smaller.inbox().size() == 2);
        assertThat(larger.stats().connectionsOpened()).isEqualTo(largerOpened);
    }

    @Test
    void aPeerDialledUnderAnotherNameIsRefused() {
        Node a = fixture.start();
        Node b = fixture.start(x -> x.listen("127.0.0.1", 0));
        // B calls itself 127.0.0.1:port; A dials it as localhost:port.
        PeerAddress alias = PeerAddress.of("localhost", b.address().port());

        a.transport().send(alias, new Pong(1));

        await().untilAsserted(() -> assertThat(a.stats().rejected(RejectReason.BAD_GREET)).isEqualTo(1));
        await().untilAsserted(() -> assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(1));
        assertThat(b.inbox().size()).isZero();
    }

    @Test
    void aPeerWithAnAdvertisedAddressIsReachedUnderIt() {
        Node b = fixture.start();
        int port = b.address().port();
        b.transport().close();
        Node advertised = fixture.start(x -> x.listen("127.0.0.1", port).advertise(PeerAddress.of("127.0.0.1", port)));
        Node a = fixture.start();

        a.send(advertised, new Pong(1));

        await().untilAsserted(() -> assertThat(advertised.inbox().from(a.address())).containsExactly(new Pong(1)));
        assertThat(advertised.transport().toBuilder().build().local()).isEqualTo(PeerAddress.of("127.0.0.1", port));
    }

    @Test
    void manyMessagesToASlowStartingPeerWaitForTheConnection() {
        Node a = fixture.start(x -> x.connectTimeout(Duration.ofSeconds(2)));
        Node b = fixture.start();
        List<TestMessage> burst = IntStream.range(0, 300).<TestMessage>mapToObj(TestMessage::ping).toList();

        burst.forEach(m -> a.send(b, m));

        await().untilAsserted(() -> assertThat(b.inbox().from(a.address())).containsExactlyElementsOf(burst));
        assertThat(a.stats().messagesSent()).isEqualTo(300);
    }

    /**
     * The acceptor's decision table, driven by hand against a fake peer X on 127.0.0.2 (so the transport, on
     * 127.0.0.1, is the smaller address): with the transport's own connection to X established, a second connection
     * from the same incarnation of X is refused, and one from a new incarnation (X restarted) replaces it.
     */
    @Test
    void aNewIncarnationReplacesTheConnectionAndTheSameOneIsRefused() throws Exception {
        Node node = fixture.start();
        try (ServerSocket fake = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.2"))) {
            PeerAddress x = PeerAddress.of("127.0.0.2", fake.getLocalPort());
            assertThat(node.address()).isLessThan(x);

            node.transport().send(x, TestMessage.ping(1));
            try (RawPeer dialled = new RawPeer(fake.accept())) {
                Frame greet = dialled.readFrame();
                assertThat(greet.type()).isEqualTo(FrameType.GREET_ACTIVE.code());
                assertThat(Handshake.readActiveGreet(Unpooled.wrappedBuffer(greet.payload())).address()).isEqualTo(node.address());
                dialled.writeFrame(FrameType.GREET_PASSIVE,
                        b -> Handshake.write(b, new Handshake.PassiveGreet(NettyFixture.CLUSTER, x, 1L, true)));
                assertThat(dialled.readFrame().type()).isEqualTo(FrameType.DATA.code());

                try (RawPeer sameIncarnation = new RawPeer(node.address())) {
                    sameIncarnation.greet(NettyFixture.CLUSTER, x, 1L, new byte[0]);
                    List<Frame> frames = sameIncarnation.framesUntilClosed();
                    assertThat(frames).singleElement().satisfies(f -> assertThat(passive(f).accepted()).isFalse());
                }

                try (RawPeer restarted = new RawPeer(node.address())) {
                    restarted.greet(NettyFixture.CLUSTER, x, 2L, new byte[0]);
                    assertThat(passive(restarted.readFrame()).accepted()).isTrue();
                    List<Frame> closing = dialled.framesUntilClosed();
                    assertThat(closing).singleElement().satisfies(f -> assertThat(f.text()).contains("superseded"));

                    node.transport().send(x, TestMessage.ping(2));
                    Frame data = restarted.readFrame();
                    assertThat(TestMessage.CODEC.decode(data.payload())).isEqualTo(TestMessage.ping(2));
                }
            }
        }
        assertThat(node.stats().framesRejected()).isZero();
    }

    /**
     * The other side of the table: a fake peer X with the smaller address refuses the transport's connection (it keeps
     * its own) but then never connects. The messages stay queued, and the transport dials again after the connect
     * timeout.
     */
    @Test
    void aRefusedConnectorKeepsItsMessagesAndRedialsIfThePeersConnectionNeverComes() throws Exception {
        Node node = fixture.start(b -> b.listen("localhost", 0));
        try (ServerSocket fake = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.2"))) {
            PeerAddress x = PeerAddress.of("127.0.0.2", fake.getLocalPort());
            assertThat(x).isLessThan(node.address());

            node.transport().send(x, TestMessage.ping(1));
            node.transport().send(x, TestMessage.ping(2));
            try (RawPeer first = new RawPeer(fake.accept())) {
                assertThat(first.readFrame().type()).isEqualTo(FrameType.GREET_ACTIVE.code());
                first.writeFrame(FrameType.GREET_PASSIVE,
                        b -> Handshake.write(b, new Handshake.PassiveGreet(NettyFixture.CLUSTER, x, 1L, false)));
                assertThat(first.framesUntilClosed()).isEmpty();
            }
            node.transport().send(x, TestMessage.ping(3));
            try (RawPeer second = new RawPeer(fake.accept())) {
                assertThat(second.readFrame().type()).isEqualTo(FrameType.GREET_ACTIVE.code());
                second.writeFrame(FrameType.GREET_PASSIVE,
                        b -> Handshake.write(b, new Handshake.PassiveGreet(NettyFixture.CLUSTER, x, 1L, true)));
                for (int i = 1; i <= 3; i++) {
                    assertThat(TestMessage.CODEC.decode(second.readFrame().payload())).isEqualTo(TestMessage.ping(i));
                }
            }
        }
        assertThat(node.stats().messagesDropped()).isZero();
        assertThat(node.stats().messagesSent()).isEqualTo(3);
    }

    private static Handshake.PassiveGreet passive(Frame frame) throws Exception {
        assertThat(frame.type()).isEqualTo(FrameType.GREET_PASSIVE.code());
        return Handshake.readPassiveGreet(Unpooled.wrappedBuffer(frame.payload()));
    }

    private static void arrive(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
