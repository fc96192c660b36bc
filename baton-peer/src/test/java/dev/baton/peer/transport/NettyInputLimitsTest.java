package dev.baton.peer.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.peer.testing.TestMessage;
import dev.baton.peer.transport.NettyFixture.Node;
import dev.baton.peer.transport.RawPeer.Frame;
import dev.baton.peer.transport.internal.FrameType;
import dev.baton.peer.transport.internal.Handshake;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the network can make a node hold is bounded: frames before the handshake are small, the handshake and every
 * frame have a deadline, and only so many strangers may be in their handshake at once.
 */
class NettyInputLimitsTest {

    private static final PeerAddress STRANGER = PeerAddress.of("127.0.0.1", 9);
    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    final NettyFixture fixture = new NettyFixture();

    @Test
    void aStrangerAnnouncingALargeFrameIsClosedAtTheLimitBeforeTheHandshake() throws Exception {
        Node server = fixture.start(b -> b.handshakeTimeout(Duration.ofMinutes(1)));
        try (RawPeer raw = new RawPeer(server.address())) {
            // A 1 MiB frame is within maxFrameSize, but not before the handshake: refused on its length prefix.
            raw.writeRaw(ByteBuffer.allocate(5 + 1000).putInt(1 << 20).put((byte) FrameType.DATA.code()).array());
            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
            assertThat(frames.get(0).text()).contains("oversized_before_handshake")
                    .contains("frame of 1048576 bytes announced before the handshake completed; the limit until then"
                            + " is 4096 bytes");
        }
        await().untilAsserted(() ->
                assertThat(server.stats().rejected(RejectReason.OVERSIZED_BEFORE_HANDSHAKE)).isEqualTo(1));
        assertThat(server.stats().framesRejected()).isEqualTo(1);
    }

    @Test
    void afterTheHandshakeFramesUpToMaxFrameSizeAreAcceptedAndLargerOnesRefused() throws Exception {
        Node server = fixture.start(b -> b.maxFrameSize(64 * 1024));
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            assertThat(raw.readFrame().type()).isEqualTo(FrameType.GREET_PASSIVE.code());
            TestMessage large = new TestMessage.Ping(1, "x".repeat(40_000));
            raw.writeFrame(FrameType.DATA.code(), TestMessage.CODEC.encode(large));
            await().until(() -> server.inbox().from(STRANGER).contains(large));

            raw.writeRaw(ByteBuffer.allocate(5).putInt(64 * 1024 + 1).put((byte) FrameType.DATA.code()).array());
            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames.get(0).text()).contains("oversized").contains("more than the limit of 65536 bytes");
        }
        await().untilAsserted(() -> assertThat(server.stats().rejected(RejectReason.OVERSIZED)).isEqualTo(1));
    }

    @Test
    void aConnectionStuckInAPartialGreetIsClosedAtTheHandshakeDeadline() throws Exception {
        Node server = fixture.start(b -> b.handshakeTimeout(Duration.ofMillis(300)).frameTimeout(Duration.ofMinutes(1)));
        try (RawPeer raw = new RawPeer(server.address())) {
            ByteBuf greet = Unpooled.buffer();
            Handshake.write(greet, new Handshake.ActiveGreet(NettyFixture.CLUSTER, STRANGER, 1, new byte[0]));
            raw.writeRaw(ByteBuffer.allocate(5 + 3).putInt(1 + greet.readableBytes())
                    .put((byte) FrameType.GREET_ACTIVE.code()).put(new byte[] {0x42, 0x54, 0x4E}).array());
            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
            assertThat(frames.get(0).text()).contains("handshake_timeout").contains("no complete handshake within 300 ms");
        }
        await().untilAsserted(() -> assertThat(server.stats().rejected(RejectReason.HANDSHAKE_TIMEOUT)).isEqualTo(1));
    }

    @Test
    void aStrangerWithoutTheSecretIsClosedAtTheHandshakeDeadlineEvenAfterItsGreet() throws Exception {
        Node server = fixture.start(b -> b.sharedSecret(SECRET).handshakeTimeout(Duration.ofMillis(300)));
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[Handshake.NONCE_BYTES]);
            assertThat(raw.readFrame().type()).isEqualTo(FrameType.AUTH_CHALLENGE.code());
            // Never answers the challenge.
            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames.get(0).text()).contains("handshake_timeout").contains("waiting for the auth response");
        }
        await().untilAsserted(() -> assertThat(server.stats().rejected(RejectReason.HANDSHAKE_TIMEOUT)).isEqualTo(1));
    }

    @Test
    void aFrameLeftIncompleteByAnEstablishedPeerIsClosedAtTheFrameTimeout() throws Exception {
        Node server = fixture.start(b -> b.frameTimeout(Duration.ofMillis(300)));
        try (RawPeer raw = new RawPeer(server.address())) {
            raw.greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            assertThat(raw.readFrame().type()).isEqualTo(FrameType.GREET_PASSIVE.code());
            raw.writeFrame(FrameType.DATA.code(), TestMessage.CODEC.encode(TestMessage.ping(1)));
            await().until(() -> server.inbox().from(STRANGER).size() == 1);

            // All but the last byte of a 100 kB frame, then nothing.
            raw.writeRaw(ByteBuffer.allocate(5 + 99_998).putInt(100_000).put((byte) FrameType.DATA.code()).array());
            List<Frame> frames = raw.framesUntilClosed();
            assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
            assertThat(frames.get(0).text()).contains("frame_timeout").contains("frame timeout 300 ms");
        }
        await().untilAsserted(() -> assertThat(server.stats().rejected(RejectReason.FRAME_TIMEOUT)).isEqualTo(1));
    }

    @Test
    void steadyTrafficIsNotMistakenForAStalledFrame() {
        Node a = fixture.start(b -> b.frameTimeout(Duration.ofMillis(50)));
        Node b = fixture.start(x -> x.frameTimeout(Duration.ofMillis(50)));
        for (int i = 0; i < 200; i++) {
            a.send(b, new TestMessage.Ping(i, "y".repeat(20_000)));
        }
        await().until(() -> b.inbox().size() == 200);
        assertThat(b.stats().framesRejected()).isZero();
        assertThat(a.stats().framesRejected()).isZero();
    }

    @Test
    void inboundConnectionsBeyondThePendingCapAreRefusedAtOnce() throws Exception {
        Node server = fixture.start(b -> b.maxPendingHandshakes(3).handshakeTimeout(Duration.ofMinutes(1)));
        Node friend = fixture.start();
        friend.send(server, TestMessage.ping(0)); // established: does not count against the cap
        await().until(() -> server.inbox().size() == 1);
        long opened = server.stats().connectionsOpened();
        List<RawPeer> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                silent.add(new RawPeer(server.address()));
            }
            await().until(() -> server.stats().connectionsOpened() == opened + 3);

            try (RawPeer fourth = new RawPeer(server.address())) {
                List<Frame> frames = fourth.framesUntilClosed();
                assertThat(frames).extracting(Frame::type).containsExactly(FrameType.CLOSE.code());
                assertThat(frames.get(0).text()).contains("too_many_pending")
                        .contains("3 inbound connections are already in their handshake (maxPendingHandshakes)");
            }
            assertThat(server.stats().rejected(RejectReason.TOO_MANY_PENDING)).isEqualTo(1);

            // One of the three completes its handshake: the next stranger gets its turn.
            silent.get(0).greet(NettyFixture.CLUSTER, STRANGER, new byte[0]);
            assertThat(silent.get(0).readFrame().type()).isEqualTo(FrameType.GREET_PASSIVE.code());
            try (RawPeer next = new RawPeer(server.address())) {
                next.greet(NettyFixture.CLUSTER, PeerAddress.of("127.0.0.1", 10), new byte[0]);
                assertThat(next.readFrame().type()).isEqualTo(FrameType.GREET_PASSIVE.code());
            }
            friend.send(server, TestMessage.ping(1));
            await().until(() -> server.inbox().from(friend.address()).size() == 2);
            assertThat(server.stats().rejected(RejectReason.TOO_MANY_PENDING)).isEqualTo(1);
        } finally {
            for (RawPeer raw : silent) {
                raw.close();
            }
        }
    }

    @Test
    void theLargestHandshakeFramesFitTheLimitBeforeTheHandshake() {
        String longest = "c".repeat(255);
        Node a = fixture.start(b -> b.clusterName(longest).sharedSecret(SECRET));
        Node b = fixture.start(x -> x.clusterName(longest).sharedSecret(SECRET));
        a.send(b, TestMessage.ping(1));
        await().until(() -> b.inbox().size() == 1);

        ByteBuf close = Unpooled.buffer();
        Handshake.write(close, new Handshake.CloseNotice("r".repeat(300), "d".repeat(2000)));
        ByteBuf greet = Unpooled.buffer();
        Handshake.write(greet, new Handshake.ActiveGreet(longest, PeerAddress.of("h".repeat(255), 1), 1,
                new byte[Handshake.NONCE_BYTES]));
        assertThat(1 + close.readableBytes()).isEqualTo(1284).isLessThanOrEqualTo(Handshake.MAX_FRAME_BYTES);
        assertThat(1 + greet.readableBytes()).isEqualTo(564);
    }

    @Test
    void theBuilderChecksTheNewLimits() {
        assertThatThrownBy(() -> fixture.builder().maxPendingHandshakes(0).build())
                .hasMessage("maxPendingHandshakes must be within 1..100000, was 0");
        assertThatThrownBy(() -> fixture.builder().frameTimeout(Duration.ZERO).build())
                .hasMessage("frameTimeout must be within 10 ms..300000 ms, was 0 ms");
    }
}
