package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.testing.TestMessage.Pong;
import dev.baton.peer.transport.NettyFixture.Node;
import dev.baton.peer.transport.RawPeer.Frame;
import dev.baton.peer.transport.internal.FrameType;
import dev.baton.peer.transport.internal.Handshake;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NettyAuthenticationTest {

    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER_SECRET = "incorrect donkey battery stapler".getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    final NettyFixture fixture = new NettyFixture();

    @Test
    void nodesWithTheSameSecretTalk() {
        Node a = fixture.start(b -> b.sharedSecret(SECRET));
        Node b = fixture.start(x -> x.sharedSecret(SECRET));

        a.send(b, TestMessage.ping(1));
        b.send(a, new Pong(1));

        await().untilAsserted(() -> {
            assertThat(b.inbox().from(a.address())).containsExactly(TestMessage.ping(1));
            assertThat(a.inbox().from(b.address())).containsExactly(new Pong(1));
        });
        assertThat(a.stats().framesRejected() + b.stats().framesRejected()).isZero();
    }

    @Test
    void simultaneousConnectWithAuthenticationStillKeepsOneConnection() {
        Node a = fixture.start(b -> b.sharedSecret(SECRET));
        Node b = fixture.start(x -> x.sharedSecret(SECRET));

        for (int i = 0; i < 20; i++) {
            a.send(b, TestMessage.ping(i));
            b.send(a, new Pong(i));
        }

        await().until(() -> a.inbox().size() == 20 && b.inbox().size() == 20);
        await().until(() -> a.openConnections() == 1 && b.openConnections() == 1);
    }

    @Test
    void aWrongSecretIsRefusedAndNothingIsDelivered() {
        Node a = fixture.start(b -> b.sharedSecret(SECRET));
        Node b = fixture.start(x -> x.sharedSecret(OTHER_SECRET));

        a.send(b, TestMessage.ping(1));

        // The connecting side checks the acceptor's proof first, so it is the one that refuses.
        await().untilAsserted(() -> assertThat(a.stats().rejected(RejectReason.UNAUTHENTICATED)).isEqualTo(1));
        await().untilAsserted(() -> assertThat(a.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(1));
        await().until(() -> a.openConnections() == 0 && b.openConnections() == 0);
        assertThat(b.inbox().size()).isZero();
    }

    @Test
    void aNodeWithoutSecretCannotReachOneWithASecret() {
        Node open = fixture.start();
        Node secured = fixture.start(x -> x.sharedSecret(SECRET));

        open.send(secured, TestMessage.ping(1));

        await().untilAsserted(() -> assertThat(secured.stats().rejected(RejectReason.UNAUTHENTICATED)).isEqualTo(1));
        await().untilAsserted(() -> assertThat(open.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(1));
        assertThat(secured.inbox().size()).isZero();
    }

    @Test
    void aNodeWithASecretRefusesToTalkToOneWithout() {
        Node open = fixture.start();
        Node secured = fixture.start(x -> x.sharedSecret(SECRET));

        secured.send(open, TestMessage.ping(1));

        await().untilAsserted(() -> assertThat(open.stats().rejected(RejectReason.UNAUTHENTICATED)).isEqualTo(1));
        await().untilAsserted(() -> assertThat(secured.stats().dropped(DropReason.UNREACHABLE)).isEqualTo(1));
        assertThat(open.inbox().size()).isZero();
    }

    @Test
    void dataBeforeAuthenticationClosesTheConnection() throws Exception {
        Node secured = fixture.start(x -> x.sharedSecret(SECRET));
        try (RawPeer raw = new RawPeer(secured.address())) {
            raw.greet(NettyFixture.CLUSTER, PeerAddress.of("127.0.0.1", 9), new byte[Handshake.NONCE_BYTES]);
            Frame challenge = raw.readFrame();
            assertThat(challenge.type()).isEqualTo(FrameType.AUTH_CHALLENGE.code());

            raw.writeFrame(FrameType.DATA.code(), TestMessage.CODEC.encode(new Pong(1)));

            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
            assertThat(frames.get(0).text()).contains("unauthenticated", "DATA frame before authentication");
        }
        assertThat(secured.stats().rejected(RejectReason.UNAUTHENTICATED)).isEqualTo(1);
        assertThat(secured.inbox().size()).isZero();
    }

    @Test
    void aForgedProofIsRefused() throws Exception {
        Node secured = fixture.start(x -> x.sharedSecret(SECRET));
        try (RawPeer raw = new RawPeer(secured.address())) {
            raw.greet(NettyFixture.CLUSTER, PeerAddress.of("127.0.0.1", 9), new byte[Handshake.NONCE_BYTES]);
            raw.readFrame();

            raw.writeFrame(FrameType.AUTH_RESPONSE, b -> Handshake.write(b, new Handshake.AuthResponse(new byte[32])));

            assertThat(raw.framesUntilClosed()).singleElement().satisfies(f -> assertThat(f.text()).contains("failed authentication"));
        }
        assertThat(secured.stats().rejected(RejectReason.UNAUTHENTICATED)).isEqualTo(1);
    }
}
