package dev.baton.peer.transport.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.baton.testkit.FakeClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the peer transport's framing on a Netty {@link EmbeddedChannel}, the first code that sees a stranger's bytes.
 * The input is two header bytes and a byte stream: bit 0 of the first byte says whether the handshake has completed
 * (limit 64 KiB instead of the 4 KiB allowed before it), the second is the size of the chunks the stream arrives in.
 * The decoder must cut exactly the frames a plain reading of the stream finds, fail with a {@link FrameException}
 * exactly where a length over the limit is announced, never hold more than one frame's worth of input, and ignore
 * everything after a failure. Plain test runs replay the inputs under {@code FrameDecoderFuzzTestInputs}; see
 * docs/fuzzing.md for a campaign.
 */
class FrameDecoderFuzzTest {

    private static final int ESTABLISHED_LIMIT = 64 * 1024;
    private static final Method BUFFERED = bufferedBytes();

    @FuzzTest(maxDuration = "30s")
    void decode(byte[] input) throws Exception {
        if (input.length < 2) {
            return;
        }
        boolean established = (input[0] & 1) == 1;
        int chunk = (input[1] & 0xff) + 1;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);

        Connection c = new Connection(false, null);
        c.wasEstablished = established;
        c.frameLimit = established ? ESTABLISHED_LIMIT : Handshake.MAX_FRAME_BYTES;
        FrameDecoder decoder = new FrameDecoder(c, Duration.ofSeconds(5), new FakeClock());
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        Expected expected = expect(stream, c.frameLimit);

        List<byte[]> frames = new ArrayList<>();
        boolean failed = false;
        try {
            for (int at = 0; at < stream.length; at += chunk) {
                ByteBuf piece = Unpooled.wrappedBuffer(stream, at, Math.min(chunk, stream.length - at));
                try {
                    channel.writeInbound(piece);
                } catch (DecoderException e) {
                    assertThat(failed).as("a second failure after the first").isFalse();
                    assertThat(e.getCause()).isInstanceOf(FrameException.class);
                    failed = true;
                }
                for (ByteBuf frame; (frame = channel.readInbound()) != null; ) {
                    frames.add(ByteBufUtil.getBytes(frame));
                    frame.release();
                }
                assertThat((int) BUFFERED.invoke(decoder)).as("bytes held").isLessThan(4 + c.frameLimit);
            }
            assertThat(failed).as("failed").isEqualTo(expected.fails);
            assertThat(frames).hasSameSizeAs(expected.frames);
            for (int i = 0; i < frames.size(); i++) {
                assertThat(frames.get(i)).as("frame %d", i).isEqualTo(expected.frames.get(i));
            }
            if (failed) {
                assertThat(channel.config().isAutoRead()).as("reading stopped").isFalse();
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** What a plain reading of the whole stream finds: the complete frames before any length over the limit. */
    private static Expected expect(byte[] stream, int limit) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.remaining() >= 4) {
            long length = Integer.toUnsignedLong(in.getInt(in.position()));
            if (length > limit) {
                return new Expected(frames, true);
            }
            if (in.remaining() < 4 + length) {
                break;
            }
            in.position(in.position() + 4);
            byte[] frame = new byte[(int) length];
            in.get(frame);
            frames.add(frame);
        }
        return new Expected(frames, false);
    }

    private record Expected(List<byte[]> frames, boolean fails) {
    }

    /** {@code ByteToMessageDecoder.actualReadableBytes()}: how much input the decoder holds. */
    private static Method bufferedBytes() {
        try {
            Method m = ByteToMessageDecoder.class.getDeclaredMethod("actualReadableBytes");
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }
}
