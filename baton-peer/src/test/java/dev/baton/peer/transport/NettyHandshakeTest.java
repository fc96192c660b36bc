package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.transport.NettyFixture.Node;
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

    private static void arrive(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
