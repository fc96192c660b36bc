package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Ping;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.transport.NettyFixture.Node;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NettyTransportTest {

    @RegisterExtension
    final NettyFixture fixture = new NettyFixture();

    @Test
    void twoTransportsExchangeMessagesBothWays() {
        Node a = fixture.start();
        Node b = fixture.start();

        a.send(b, TestMessage.ping(1));
        await().untilAsserted(() -> assertThat(b.inbox().from(a.address())).containsExactly(TestMessage.ping(1)));
        b.send(a, new Pong(1));
        await().untilAsserted(() -> assertThat(a.inbox().from(b.address())).containsExactly(new Pong(1)));

        assertThat(a.stats().messagesSent()).isEqualTo(1);
        assertThat(a.stats().messagesReceived()).isEqualTo(1);
        assertThat(b.stats().messagesSent()).isEqualTo(1);
        assertThat(b.stats().messagesReceived()).isEqualTo(1);
        // B answered over the connection A opened: one connection on each side.
        assertThat(a.openConnections()).isEqualTo(1);
        assertThat(b.openConnections()).isEqualTo(1);
    }

    @Test
    void messagesOnOneConnectionArriveInOrder() {
        Node a = fixture.start();
        Node b = fixture.start();
        List<TestMessage> sent = IntStream.range(0, 500).<TestMessage>mapToObj(TestMessage::ping).toList();

        sent.forEach(m -> a.send(b, m));

        await().untilAsserted(() -> assertThat(b.inbox().from(a.address())).containsExactlyElementsOf(sent));
    }

    @Test
    void threeTransportsTalkAllToAll() {
        List<Node> nodes = List.of(fixture.start(), fixture.start(), fixture.start());

        for (Node from : nodes) {
            for (Node to : nodes) {
                if (from != to) {
                    from.send(to, new Ping(from.address().port(), "to " + to.address()));
                }
            }
        }

        for (Node to : nodes) {
            await().untilAsserted(() -> assertThat(to.inbox().size()).isEqualTo(2));
            for (Node from : nodes) {
                if (from != to) {
                    assertThat(to.inbox().from(from.address()))
                            .containsExactly(new Ping(from.address().port(), "to " + to.address()));
                }
            }
        }
        // Each pair shares one connection, whoever dialled first.
        await().untilAsserted(() -> nodes.forEach(n -> assertThat(n.openConnections()).isEqualTo(2)));
    }

    @Test
    void aMessageToItselfReachesItsOwnHandler() {
        Node a = fixture.start();

        a.send(a, new Pong(5));

        await().untilAsserted(() -> assertThat(a.inbox().from(a.address())).containsExactly(new Pong(5)));
        assertThat(a.stats().connectionsOpened()).isZero();
    }

    @Test
    void anUnreachablePeerCostsDroppedMessagesNotExceptions() throws IOException {
        Node a = fixture.start();
        PeerAddress nobody;
        try (ServerSocket s = new ServerSocket(0)) {
            nobody = PeerAddress.of("127.0.0.1", s.getLocalPort());
        }

        a.transport().send(nobody, TestMessage.ping(1));
        a.transport().send(nobody, TestMessage.ping(2));

        await().untilAsserted(() -> assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(2));
        assertThat(a.stats().messagesSent()).isZero();
        // The next message tries again.
        a.transport().send(nobody, TestMessage.ping(3));
        await().untilAsserted(() -> assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(3));
    }

    @Test
    void messagesBeyondTheQueueBoundAreDroppedWhileConnecting() throws IOException {
        Node a = fixture.start(b -> b.sendQueueBound(2).handshakeTimeout(Duration.ofMillis(300)));
        // Accepts TCP but never greets back, so A's messages wait until the handshake times out.
        try (ServerSocket silent = new ServerSocket(0); Socket ignored = null) {
            PeerAddress peer = PeerAddress.of("127.0.0.1", silent.getLocalPort());
            for (int i = 0; i < 5; i++) {
                a.transport().send(peer, TestMessage.ping(i));
            }
            assertThat(a.stats().dropped(DropReason.QUEUE_FULL)).isEqualTo(3);
            try (Socket accepted = silent.accept()) {
                await().untilAsserted(() -> assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(2));
                assertThat(a.stats().rejected(RejectReason.HANDSHAKE_TIMEOUT)).isEqualTo(1);
            }
        }
    }

    @Test
    void aRestartedPeerIsReachedAgainOnItsAddress() {
        Node a = fixture.start();
        Node b = fixture.start();
        a.send(b, TestMessage.ping(1));
        await().until(() -> b.inbox().size() == 1);
        PeerAddress bAddress = b.address();

        b.transport().close();
        Node b2 = fixture.start(x -> x.listen(bAddress));
        // The restarted node speaks first: A replaces its old connection with the new incarnation's.
        b2.transport().send(a.address(), new Pong(2));
        await().untilAsserted(() -> assertThat(a.inbox().from(bAddress)).containsExactly(new Pong(2)));
        a.send(b2, TestMessage.ping(3));

        await().untilAsserted(() -> assertThat(b2.inbox().from(a.address())).containsExactly(TestMessage.ping(3)));
        assertThat(b.inbox().size()).isEqualTo(1);
    }

    @Test
    void aPeerThatRestartsSilentlyIsRedialledOnTheNextSend() {
        Node a = fixture.start();
        Node b = fixture.start();
        a.send(b, TestMessage.ping(1));
        await().until(() -> b.inbox().size() == 1);
        PeerAddress bAddress = b.address();

        b.transport().close();
        await().until(() -> a.openConnections() == 0);
        Node b2 = fixture.start(x -> x.listen(bAddress));
        a.send(b2, TestMessage.ping(2));

        await().untilAsserted(() -> assertThat(b2.inbox().from(a.address())).containsExactly(TestMessage.ping(2)));
    }

    @Test
    void aThrowingHandlerDoesNotHurtTheConnection() {
        Node a = fixture.start();
        Node b = fixture.start();
        Inbox inbox = new Inbox();
        b.transport().setHandler((from, message) -> {
            inbox.onMessage(from, message);
            if (message instanceof Ping p && p.n() == 1) {
                throw new IllegalStateException("handler bug");
            }
        });

        a.send(b, TestMessage.ping(1));
        a.send(b, TestMessage.ping(2));

        await().untilAsserted(() -> assertThat(inbox.size()).isEqualTo(2));
        assertThat(a.stats().connectionsClosed()).isZero();
    }

    @Test
    void messagesWithoutAHandlerAreDroppedOnTheReceiver() {
        Node a = fixture.start();
        Node b = fixture.start();
        b.transport().setHandler(null);

        a.send(b, TestMessage.ping(1));

        await().untilAsserted(() -> assertThat(b.stats().dropped(DropReason.NO_HANDLER)).isEqualTo(1));
    }

    @Test
    void callerBugsThrowButNetworkConditionsNeverDo() {
        NettyTransport<TestMessage> notStarted = fixture.track(fixture.builder().build());
        assertThatThrownBy(() -> notStarted.send(PeerAddress.of("127.0.0.1", 1), new Pong(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("before start()");
        assertThatThrownBy(notStarted::local).hasMessageContaining("start the transport first");

        Node a = fixture.start(b -> b.maxFrameSize(1024));
        assertThatThrownBy(() -> a.transport().send(a.address(), new Ping(1, "x".repeat(2000))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than the frame limit of 1024");

        a.transport().close();
        a.transport().send(PeerAddress.of("127.0.0.1", 1), new Pong(1));
        assertThat(a.stats().dropped(DropReason.CLOSED)).isEqualTo(1);
        assertThatThrownBy(() -> a.transport().start()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theBuilderNamesTheFieldThatIsWrong() {
        assertThatThrownBy(() -> NettyTransport.builder(TestMessage.CODEC).clusterName("c").build())
                .hasMessage("listen address must be set");
        assertThatThrownBy(() -> fixture.builder().clusterName(null).build()).hasMessage("clusterName must be set");
        assertThatThrownBy(() -> fixture.builder().maxFrameSize(10).build()).hasMessageContaining("maxFrameSize must be within");
        assertThatThrownBy(() -> fixture.builder().sharedSecret(new byte[5]).build())
                .hasMessage("sharedSecret must be at least 16 bytes, was 5");
        assertThatThrownBy(() -> fixture.builder().connectTimeout(Duration.ZERO).build()).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> fixture.builder().sendQueueBound(0).build()).hasMessageContaining("sendQueueBound");
        assertThatThrownBy(() -> fixture.builder().workerThreads(0).build()).hasMessageContaining("workerThreads");
        assertThatThrownBy(() -> fixture.builder().listen("0.0.0.0", 7400).build()).hasMessageContaining("advertise must be set");
    }

    @Test
    void listeningOnABusyPortFailsAtStart() {
        Node a = fixture.start();
        NettyTransport<TestMessage> second = fixture.track(fixture.builder().listen(a.address()).build());

        assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot listen on 127.0.0.1:" + a.address().port());
    }

    @Test
    void closeReleasesEveryThread() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<Node> nodes = List.of(
                fixture.start(b -> b.workerThreads(2)), fixture.start(), fixture.start(b -> b.workerThreads(3)));
        for (Node from : nodes) {
            for (Node to : nodes) {
                from.send(to, new Pong(1));
            }
        }
        await().untilAsserted(() -> nodes.forEach(n -> assertThat(n.inbox().size()).isEqualTo(3)));

        nodes.forEach(n -> n.transport().close());

        assertThat(nodes).allSatisfy(n -> assertThat(n.transport().state()).isEqualTo(NettyTransport.State.CLOSED));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(t -> !before.contains(t) && t.isAlive())
                .extracting(Thread::getName)
                .filteredOn(name -> name.startsWith("baton-peer") || !isJvmOrNettyGlobal(name))
                .isEmpty());
    }

    /** Threads the JVM or Netty start once per process, not per transport. */
    private static boolean isJvmOrNettyGlobal(String name) {
        return name.equals("ObjectCleanerThread") || name.startsWith("process reaper") || name.startsWith("Attach Listener")
                || name.startsWith("Common-Cleaner") || name.startsWith("ForkJoinPool") || name.startsWith("awaitility");
    }
}
