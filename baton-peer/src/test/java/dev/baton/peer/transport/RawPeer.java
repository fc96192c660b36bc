package dev.baton.peer.transport;

import dev.baton.peer.transport.internal.FrameType;
import dev.baton.peer.transport.internal.Handshake;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A hand-driven TCP client that speaks (or breaks) the frame format, to feed a transport bad input. */
final class RawPeer implements AutoCloseable {

    record Frame(int type, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RawPeer(PeerAddress to) throws IOException {
        this(new Socket(to.host(), to.port()));
    }

    /** Wraps a connection a test accepted on its own server socket (the transport dialled it). */
    RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void writeFrame(int type, byte[] payload) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        buf.writeInt(1 + payload.length);
        buf.writeByte(type);
        buf.writeBytes(payload);
        writeRaw(ByteBufUtil.getBytes(buf));
    }

    void writeFrame(FrameType type, Consumer<ByteBuf> body) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        body.accept(buf);
        writeFrame(type.code(), ByteBufUtil.getBytes(buf));
    }

    void greet(String cluster, PeerAddress as, byte[] nonce) throws IOException {
        greet(cluster, as, 42L, nonce);
    }

    void greet(String cluster, PeerAddress as, long incarnation, byte[] nonce) throws IOException {
        writeFrame(FrameType.GREET_ACTIVE, b -> Handshake.write(b, new Handshake.ActiveGreet(cluster, as, incarnation, nonce)));
    }

    /** Next frame, or null at end of stream. */
    Frame readFrame() throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        int type = in.readUnsignedByte();
        byte[] payload = new byte[length - 1];
        in.readFully(payload);
        return new Frame(type, payload);
    }

    /** Reads until the transport closes the connection; returns the frames it sent before. */
    List<Frame> framesUntilClosed() throws IOException {
        List<Frame> frames = new ArrayList<>();
        try {
            for (Frame f = readFrame(); f != null; f = readFrame()) {
                frames.add(f);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("connection still open after 5 s; frames so far: " + frames, e);
        } catch (IOException e) {
            // Connection reset: closed as well.
        }
        return frames;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
