package dev.baton.peer.transport.internal;

import dev.baton.core.time.Clock;
import dev.baton.peer.transport.RejectReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cuts a connection's bytes into frames (a 4-byte unsigned length, then that many bytes), holding no more of a peer's
 * input than the limit in force allows, and none of it for long:
 *
 * <ul>
 *   <li>Until the handshake has completed the limit is {@link Handshake#MAX_FRAME_BYTES}, enough for any handshake
 *       frame; after it, the connection's {@link Connection#frameLimit}, the configured maximum frame size. A length
 *       over the limit fails the connection as soon as the prefix is read, before any of the frame is buffered.</li>
 *   <li>Nothing is allocated for an announced length: bytes are buffered as they arrive, so a peer that announces a
 *       large frame holds exactly what it has sent.</li>
 *   <li>A frame that stays incomplete for the frame timeout fails the connection, so a peer cannot pin memory by
 *       sending all but the last byte of a frame.</li>
 * </ul>
 *
 * <p>A failure is a {@link FrameException} delivered to {@link ConnectionHandler#exceptionCaught}, which counts it,
 * logs it and closes the connection; from then on input is discarded. Runs on the channel's event loop only.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private static final int LENGTH_BYTES = 4;

    private final Connection c;
    private final long frameTimeoutNanos;
    private boolean failed;
    private boolean partial;
    private long partialSince;
    private ScheduledFuture<?> stallTimer;
    private final Clock clock;

    FrameDecoder(Connection c, Duration frameTimeout, Clock clock) {
        this.c = c;
        this.frameTimeoutNanos = frameTimeout.toNanos();
        this.clock = clock;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws FrameException {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() >= LENGTH_BYTES) {
            long length = in.getUnsignedInt(in.readerIndex());
            int limit = c.frameLimit;
            if (length > limit) {
                fail(ctx, in);
                throw tooLong(length, limit);
            }
            if (in.readableBytes() >= LENGTH_BYTES + length) {
                in.skipBytes(LENGTH_BYTES);
                out.add(in.readRetainedSlice((int) length));
                partial = false;
                return;
            }
        }
        // Part of a frame (or of its length) waits for more bytes: start its clock if it is a new one.
        if (in.isReadable() && !partial) {
            partial = true;
            partialSince = clock.nanoTime();
            armStallTimer(ctx, frameTimeoutNanos);
        } else if (!in.isReadable()) {
            partial = false;
        }
    }

    private FrameException tooLong(long length, int limit) {
        if (c.wasEstablished) {
            return new FrameException(RejectReason.OVERSIZED, "frame of " + length
                    + " bytes, more than the limit of " + limit + " bytes (maxFrameSize)");
        }
        return new FrameException(RejectReason.OVERSIZED_BEFORE_HANDSHAKE, "frame of " + length
                + " bytes announced before the handshake completed; the limit until then is " + limit + " bytes");
    }

    private void armStallTimer(ChannelHandlerContext ctx, long delayNanos) {
        if (stallTimer == null) {
            stallTimer = ctx.executor().schedule(() -> checkStall(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkStall(ChannelHandlerContext ctx) {
        stallTimer = null;
        if (failed || !partial || !ctx.channel().isActive()) {
            return;
        }
        long waited = clock.nanoTime() - partialSince;
        if (waited < frameTimeoutNanos) {
            armStallTimer(ctx, frameTimeoutNanos - waited); // a later frame: it gets its own full timeout
            return;
        }
        fail(ctx, null);
        ctx.fireExceptionCaught(new DecoderException(new FrameException(RejectReason.FRAME_TIMEOUT,
                "a frame stayed incomplete for " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms (frame timeout "
                        + TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos) + " ms)")));
    }

    /** Stops buffering this peer's input: what is held is released, what comes is skipped, reading stops. */
    private void fail(ChannelHandlerContext ctx, ByteBuf in) {
        failed = true;
        partial = false;
        if (in != null) {
            in.skipBytes(in.readableBytes());
        }
        ctx.channel().config().setAutoRead(false);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (stallTimer != null) {
            stallTimer.cancel(false);
            stallTimer = null;
        }
    }
}
