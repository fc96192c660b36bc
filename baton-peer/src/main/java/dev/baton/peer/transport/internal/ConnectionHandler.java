package dev.baton.peer.transport.internal;

import dev.baton.peer.transport.MalformedMessageException;
import dev.baton.peer.transport.RejectReason;
import dev.baton.peer.transport.internal.Connection.Phase;
import dev.baton.peer.transport.internal.Handshake.ActiveGreet;
import dev.baton.peer.transport.internal.Handshake.AuthChallenge;
import dev.baton.peer.transport.internal.Handshake.AuthResponse;
import dev.baton.peer.transport.internal.Handshake.CloseNotice;
import dev.baton.peer.transport.internal.Handshake.PassiveGreet;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's side of the wire protocol: reads its frames, checks each against the moment of the handshake it
 * arrives in, answers greets and challenges, hands DATA to the transport, and closes the connection with a counted,
 * logged reason when the peer breaks a rule. Decisions that involve other connections (which one to keep for a peer)
 * belong to {@link NettyConnections}, under its lock.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger("dev.baton.peer.transport.NettyTransport");

    private final NettyConnections owner;
    private final Connection c;

    ConnectionHandler(NettyConnections owner, Connection c) {
        this.owner = owner;
        this.c = c;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        onActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            onFrame(frame);
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        owner.connectionClosed(c);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        onException(cause);
    }

    private void onActive() {
        owner.counters.connectionOpened();
        boolean refused;
        synchronized (owner.lock) {
            if (owner.closed || c.isEnding()) {
                // Transport closing, or an outbound connection abandoned while it connected (the peer's own won).
                c.phase = Phase.CLOSING;
                c.channel.close();
                return;
            }
            refused = !c.outbound && !owner.admitPending(c);
            if (!refused) {
                startHandshake();
            }
        }
        if (refused) {
            // Refused before reading a byte: a flood of connections costs a counter and a rate-limited line each.
            reject(RejectReason.TOO_MANY_PENDING, owner.settings.maxPendingHandshakes()
                    + " inbound connections are already in their handshake (maxPendingHandshakes)");
        }
    }

    /** Arms the handshake deadline and, on a connection this node opened, sends the active greet. Lock held. */
    private void startHandshake() {
        c.handshakeTimer = c.channel.eventLoop().schedule(
                this::handshakeTimedOut, owner.settings.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
        if (!c.outbound) {
            return;
        }
        c.localNonce = owner.auth == null ? new byte[0] : owner.auth.nonce();
        c.phase = owner.auth == null ? Phase.AWAIT_PASSIVE_GREET : Phase.AWAIT_CHALLENGE;
        ActiveGreet greet = new ActiveGreet(owner.settings.cluster(), owner.local, owner.incarnation, c.localNonce);
        owner.writeFrame(c, FrameType.GREET_ACTIVE, buf -> Handshake.write(buf, greet));
    }

    private void onFrame(ByteBuf frame) {
        if (c.phase == Phase.CLOSED || (c.phase == Phase.CLOSING && !c.wasEstablished)) {
            return;
        }
        if (!frame.isReadable()) {
            reject(RejectReason.MALFORMED, "empty frame: no type byte");
            return;
        }
        int code = frame.readUnsignedByte();
        FrameType type = FrameType.of(code);
        if (type == null) {
            reject(RejectReason.UNKNOWN_FRAME_TYPE, "unknown frame type " + code);
            return;
        }
        try {
            switch (type) {
                case GREET_ACTIVE -> onActiveGreet(Handshake.readActiveGreet(frame));
                case GREET_PASSIVE -> onPassiveGreet(Handshake.readPassiveGreet(frame));
                case AUTH_CHALLENGE -> onAuthChallenge(frame);
                case AUTH_RESPONSE -> onAuthResponse(frame);
                case DATA -> onData(frame);
                case CLOSE -> onCloseNotice(Handshake.readCloseNotice(frame));
                default -> throw new IllegalStateException("unhandled frame type " + type);
            }
        } catch (FrameException e) {
            reject(e.reason(), e.getMessage());
        }
    }

    private void onActiveGreet(ActiveGreet greet) throws FrameException {
        synchronized (owner.lock) {
            if (c.isEnding()) {
                return;
            }
            if (c.outbound || c.phase != Phase.AWAIT_ACTIVE_GREET) {
                throw new FrameException(RejectReason.BAD_GREET, "unexpected active greet while " + phaseText());
            }
            if (!greet.cluster().equals(owner.settings.cluster())) {
                throw new FrameException(RejectReason.WRONG_CLUSTER, "peer " + greet.address() + " belongs to cluster '"
                        + greet.cluster() + "', this node to '" + owner.settings.cluster() + "'");
            }
            if (greet.address().equals(owner.local)) {
                throw new FrameException(RejectReason.BAD_GREET, "peer claims this node's own address " + owner.local);
            }
            if (owner.auth != null && greet.nonce().length == 0) {
                throw new FrameException(RejectReason.UNAUTHENTICATED,
                        "peer " + greet.address() + " has no shared secret; this node requires one");
            }
            if (owner.auth == null && greet.nonce().length != 0) {
                throw new FrameException(RejectReason.UNAUTHENTICATED,
                        "peer " + greet.address() + " authenticates with a shared secret; this node has none");
            }
            c.remote = greet.address();
            c.remoteIncarnation = greet.incarnation();
            c.remoteNonce = greet.nonce();
            if (owner.auth == null) {
                owner.admit(c);
                return;
            }
            c.localNonce = owner.auth.nonce();
            byte[] proof = owner.auth.proof(SharedSecretAuth.ACCEPTOR, owner.settings.cluster(), c.remote, owner.local,
                    c.remoteNonce, c.localNonce);
            c.phase = Phase.AWAIT_AUTH_RESPONSE;
            AuthChallenge challenge = new AuthChallenge(owner.local, c.localNonce, proof);
            owner.writeFrame(c, FrameType.AUTH_CHALLENGE, buf -> Handshake.write(buf, challenge));
        }
    }

    private void onAuthChallenge(ByteBuf frame) throws FrameException {
        synchronized (owner.lock) {
            if (c.isEnding()) {
                return;
            }
            if (!c.outbound || c.phase != Phase.AWAIT_CHALLENGE) {
                throw new FrameException(RejectReason.BAD_GREET, "unexpected auth challenge while " + phaseText());
            }
            AuthChallenge challenge = Handshake.readAuthChallenge(frame);
            if (!challenge.address().equals(c.remote)) {
                throw new FrameException(RejectReason.BAD_GREET,
                        "dialled " + c.remote + " but the peer calls itself " + challenge.address());
            }
            byte[] expected = owner.auth.proof(SharedSecretAuth.ACCEPTOR, owner.settings.cluster(), owner.local, c.remote,
                    c.localNonce, challenge.nonce());
            if (!SharedSecretAuth.matches(expected, challenge.proof())) {
                throw new FrameException(RejectReason.UNAUTHENTICATED, "peer " + c.remote
                        + " failed authentication: its proof does not match this node's shared secret");
            }
            c.remoteNonce = challenge.nonce();
            byte[] proof = owner.auth.proof(SharedSecretAuth.CONNECTOR, owner.settings.cluster(), owner.local, c.remote,
                    c.localNonce, c.remoteNonce);
            c.phase = Phase.AWAIT_PASSIVE_GREET;
            owner.writeFrame(c, FrameType.AUTH_RESPONSE, buf -> Handshake.write(buf, new AuthResponse(proof)));
        }
    }

    private void onAuthResponse(ByteBuf frame) throws FrameException {
        synchronized (owner.lock) {
            if (c.isEnding()) {
                return;
            }
            if (c.outbound || c.phase != Phase.AWAIT_AUTH_RESPONSE) {
                throw new FrameException(RejectReason.BAD_GREET, "unexpected auth response while " + phaseText());
            }
            AuthResponse response = Handshake.readAuthResponse(frame);
            byte[] expected = owner.auth.proof(SharedSecretAuth.CONNECTOR, owner.settings.cluster(), c.remote, owner.local,
                    c.remoteNonce, c.localNonce);
            if (!SharedSecretAuth.matches(expected, response.proof())) {
                throw new FrameException(RejectReason.UNAUTHENTICATED, "peer " + c.remote
                        + " failed authentication: its proof does not match this node's shared secret");
            }
            owner.admit(c);
        }
    }

    private void onPassiveGreet(PassiveGreet greet) throws FrameException {
        synchronized (owner.lock) {
            if (c.isEnding()) {
                return;
            }
            if (!c.outbound || c.phase != Phase.AWAIT_PASSIVE_GREET) {
                throw new FrameException(RejectReason.BAD_GREET, "unexpected passive greet while " + phaseText());
            }
            if (!greet.cluster().equals(owner.settings.cluster())) {
                throw new FrameException(RejectReason.WRONG_CLUSTER, "peer " + greet.address() + " belongs to cluster '"
                        + greet.cluster() + "', this node to '" + owner.settings.cluster() + "'");
            }
            if (!greet.address().equals(c.remote)) {
                throw new FrameException(RejectReason.BAD_GREET,
                        "dialled " + c.remote + " but the peer calls itself " + greet.address());
            }
            c.remoteIncarnation = greet.incarnation();
            owner.settle(c, greet.accepted());
        }
    }

    private void onData(ByteBuf frame) throws FrameException {
        Phase phase;
        synchronized (owner.lock) {
            phase = c.phase;
        }
        if (phase != Phase.ESTABLISHED && !(phase == Phase.CLOSING && c.wasEstablished)) {
            if (phase == Phase.AWAIT_AUTH_RESPONSE || phase == Phase.AWAIT_CHALLENGE) {
                throw new FrameException(RejectReason.UNAUTHENTICATED, "DATA frame before authentication");
            }
            throw new FrameException(RejectReason.BAD_GREET, "DATA frame before the handshake completed ("
                    + phaseText() + ")");
        }
        byte[] payload = ByteBufUtil.getBytes(frame);
        try {
            owner.sink.deliver(c.remote, payload);
        } catch (MalformedMessageException e) {
            throw new FrameException(RejectReason.MALFORMED, "DATA payload refused by the codec: " + e.getMessage());
        }
    }

    private void onCloseNotice(CloseNotice notice) {
        boolean routine = notice.reason().equals("duplicate") || notice.reason().equals("superseded")
                || notice.reason().equals("shutdown");
        if (routine) {
            log.debug("Peer closed connection {}: {}: {}", c.describe(), notice.reason(), notice.detail());
        } else {
            owner.warnings.warn("peer-close", "Peer closed connection " + c.describe() + ": " + notice.reason() + ": "
                    + notice.detail());
        }
        synchronized (owner.lock) {
            c.phase = Phase.CLOSING;
        }
        c.channel.close();
    }

    private void onException(Throwable cause) {
        if (cause instanceof DecoderException && cause.getCause() instanceof FrameException e) {
            reject(e.reason(), e.getMessage());
        } else if (cause instanceof TooLongFrameException) {
            reject(RejectReason.OVERSIZED, "frame larger than the limit of " + owner.settings.maxFrameSize() + " bytes ("
                    + cause.getMessage() + ")");
        } else if (cause instanceof CorruptedFrameException || cause instanceof DecoderException) {
            reject(RejectReason.MALFORMED, String.valueOf(cause.getMessage()));
        } else if (cause instanceof IOException) {
            log.debug("Connection {} failed: {}", c.describe(), cause.getMessage());
            c.channel.close();
        } else {
            log.warn("Unexpected error on connection {}; closing it", c.describe(), cause);
            c.channel.close();
        }
    }

    private void handshakeTimedOut() {
        boolean pending;
        synchronized (owner.lock) {
            pending = c.phase != Phase.ESTABLISHED && !c.isEnding();
        }
        if (pending) {
            reject(RejectReason.HANDSHAKE_TIMEOUT, "no complete handshake within " + owner.settings.handshakeTimeout().toMillis()
                    + " ms (" + phaseText() + ")");
        }
    }

    /** Counts and logs a protocol violation, tells the peer why, and closes the connection. */
    private void reject(RejectReason reason, String detail) {
        synchronized (owner.lock) {
            if (c.isEnding()) {
                return;
            }
        }
        owner.counters.rejected(reason);
        c.channel.config().setAutoRead(false); // nothing more from this peer is read, or buffered
        owner.warnings.warn(reason.label(), "Closing connection " + c.describe() + ": " + reason.label() + ": " + detail);
        owner.closeWithNotice(c, reason.label(), detail);
    }

    private String phaseText() {
        return switch (c.phase) {
            case CONNECTING -> "connecting";
            case AWAIT_ACTIVE_GREET -> "waiting for the active greet";
            case AWAIT_CHALLENGE -> "waiting for the auth challenge";
            case AWAIT_AUTH_RESPONSE -> "waiting for the auth response";
            case AWAIT_PASSIVE_GREET -> "waiting for the passive greet";
            case ESTABLISHED -> "established";
            case CLOSING, CLOSED -> "closing";
        };
    }
}
