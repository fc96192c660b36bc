package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.transport.NettyFixture.Node;
import dev.baton.peer.transport.RawPeer.Frame;
import dev.baton.peer.transport.internal.FrameType;
import dev.baton.peer.transport.internal.Handshake;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Whatever a stranger sends, the transport closes that one connection with a reason and a counter, and goes on
 * serving its real peers over their own connections.
 */
class NettyBadInputTest {

    private static final PeerAddress STRANGER = PeerAddress.of("127.0.0.1", 9);

    @RegisterExtension
    final NettyFixture fixture = new NettyFixture();

    private Node server;
    private Node friend;

    @BeforeEach
    void connectAFriend() {
        server = fixture.start(b -> b.maxFrameSize(4096).handshakeTimeout(Duration.ofMillis(500)));
        friend = fixture.start();
        friend.send(server, TestMessage.ping(0));
        await().until(() -> server.inbox().size() == 1);
    }

    @Test
    void garbageBytesCloseTheConnection() throws Exception {
        List<Frame> frames = sendAndCollect("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertClosedWith(frames, RejectReason.OVERSIZED_BEFORE_HANDSHAKE);
    }

    @Test
    void anOversizedLengthPrefixClosesTheConnection() throws Exception {
        assertClosedWith(sendAndCollect(new byte[] {0, 0, 0x10, 1}), RejectReason.OVERSIZED_BEFORE_HANDSHAKE);
    }

    @Test
    void theLengthPrefixIsUnsignedSoAllOnesIsOversized() throws Exception {
        assertClosedWith(sendAndCollect(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe}),
                RejectReason.OVERSIZED_BEFORE_HANDSHAKE);
    }

    @Test
    void anEmptyFrameClosesTheConnection() throws Exception {
        assertClosedWith(sendAndCollect(new byte[] {0, 0, 0, 0}), RejectReason.MALFORMED);
    }

    @Test
    void anUnknownFrameTypeClosesTheConnection() throws Exception {
        assertClosedWith(sendAndCollect(new byte[] {0, 0, 0, 2, 99, 1}), RejectReason.UNKNOWN_FRAME_TYPE);
    }

    @Test
    void aGreetFromAnotherClusterClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet("another-cluster", STRANGER, new byte[0]);
            List<Frame> frames = raw.framesUntilClosed();
            assertClosedWith(frames, RejectReason.WRONG_CLUSTER);
            assertThat(frames.get(0).text()).contains("belongs to cluster 'another-cluster'");
        }
    }

    @Test
    void aGreetOfAnotherProtocolVersionClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.writeFrame(FrameType.GREET_ACTIVE, b -> {
                b.writeInt(0x42544E50);
                b.writeShort(Handshake.PROTOCOL_VERSION + 1);
                b.writeBytes(new byte[40]);
            });
            List<Frame> frames = raw.framesUntilClosed();
            assertClosedWith(frames, RejectReason.VERSION_MISMATCH);
            assertThat(frames.get(0).text()).contains("peer speaks protocol version 2, this node speaks 1");
        }
    }

    @Test
    void aGreetThatIsNotBatonsClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.writeFrame(FrameType.GREET_ACTIVE.code(), "hello there".getBytes(StandardCharsets.US_ASCII));
            assertClosedWith(raw.framesUntilClosed(), RejectReason.BAD_GREET);
        }
    }

    @Test
    void dataBeforeTheGreetClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.writeFrame(FrameType.DATA.code(), TestMessage.CODEC.encode(TestMessage.ping(1)));
            List<Frame> frames = raw.framesUntilClosed();
            assertClosedWith(frames, RejectReason.BAD_GREET);
            assertThat(frames.get(0).text()).contains("DATA frame before the handshake completed");
        }
    }

    @Test
    void aPeerClaimingThisNodesAddressIsRefused() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, server.address(), new byte[0]);
            assertClosedWith(raw.framesUntilClosed(), RejectReason.BAD_GREET);
        }
    }

    @Test
    void aSilentConnectionIsClosedAfterTheHandshakeTimeout() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            List<Frame> frames = raw.framesUntilClosed();
            assertClosedWith(frames, RejectReason.HANDSHAKE_TIMEOUT);
            assertThat(frames.get(0).text()).contains("no complete handshake within 500 ms");
        }
    }

    @Test
    void aPayloadTheCodecRefusesClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            Frame passive = raw.readFrame();
            assertThat(passive.type()).isEqualTo(FrameType.GREET_PASSIVE.code());
            raw.writeFrame(FrameType.DATA.code(), TestMessage.CODEC.encode(TestMessage.ping(1)));
            await().until(() -> server.inbox().from(STRANGER).size() == 1);

            raw.writeFrame(FrameType.DATA.code(), "{\"type\":\"Nope\"}".getBytes(StandardCharsets.UTF_8));

            List<Frame> frames = raw.framesUntilClosed();
            assertClosedWith(frames, RejectReason.MALFORMED);
            assertThat(frames.get(0).text()).contains("refused by the codec: unknown message type 'Nope'");
        }
    }

    @Test
    void aSecondGreetClosesTheConnection() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            raw.readFrame();
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            assertClosedWith(raw.framesUntilClosed(), RejectReason.BAD_GREET);
        }
    }

    @Test
    void aStrangerSendingPassiveGreetsOrAuthFramesIsRefused() throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.writeFrame(FrameType.GREET_PASSIVE, (ByteBuf b) -> Handshake.write(b,
                    new Handshake.PassiveGreet(NettyFixture.CLUSTER, STRANGER, 1, true)));
            assertClosedWith(raw.framesUntilClosed(), RejectReason.BAD_GREET);
        }
    }

    private List<Frame> sendAndCollect(byte[] bytes) throws Exception {
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.writeRaw(bytes);
            return raw.framesUntilClosed();
        }
    }

    /** The stranger was told why, the counter moved, and the friend's connection is untouched and still works. */
    private void assertClosedWith(List<Frame> frames, RejectReason reason) {
        assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
        assertThat(frames.get(0).text()).startsWith(new String(new byte[] {0, (byte) reason.label().length()},
                StandardCharsets.ISO_8859_1) + reason.label());
        await().untilAsserted(() -> assertThat(server.stats().rejected(reason)).isEqualTo(1));
        assertThat(server.stats().framesRejected()).isEqualTo(1);

        int before = server.inbox().from(friend.address()).size();
        friend.send(server, TestMessage.ping(1));
        server.transport().send(friend.address(), TestMessage.ping(2));
        await().untilAsserted(() -> {
            assertThat(server.inbox().from(friend.address())).hasSize(before + 1);
            assertThat(friend.inbox().from(server.address())).contains(TestMessage.ping(2));
        });
        assertThat(friend.stats().connectionsClosed()).isZero();
        assertThat(friend.stats().connectionsOpened()).isEqualTo(1);
    }
}
