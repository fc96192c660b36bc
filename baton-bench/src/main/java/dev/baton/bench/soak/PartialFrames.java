package dev.baton.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flood (c): raw TCP connections to a peer node's {@code --listen} port, each announcing a 1 MiB frame (length
 * 1,048,576, type DATA) and sending all of it but the last byte, then holding the connection open until the node
 * closes it. No handshake: this is what a stranger on the network can do.
 */
final class PartialFrames extends RawSocketFlood {

    private static final int FRAME_LENGTH = 1 << 20;
    private static final int CHUNK = 64 * 1024;

    private final AtomicLong completeButOne = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();

    PartialFrames(int port, int connections) {
        super(port, connections);
    }

    @Override
    protected boolean attack(int slot, Socket socket) throws IOException {
        OutputStream out = socket.getOutputStream();
        ByteBuffer head = ByteBuffer.allocate(5).putInt(FRAME_LENGTH).put((byte) 5);
        out.write(head.array());
        bytesSent.addAndGet(5);
        // length counts the type byte: the payload is FRAME_LENGTH - 1 bytes; all but its last are sent.
        int remaining = FRAME_LENGTH - 2;
        byte[] chunk = new byte[CHUNK];
        while (remaining > 0 && running()) {
            int n = Math.min(CHUNK, remaining);
            out.write(chunk, 0, n);
            remaining -= n;
            bytesSent.addAndGet(n);
        }
        out.flush();
        if (remaining == 0) {
            completeButOne.incrementAndGet();
        }
        socket.setSoTimeout(1_000);
        InputStream in = socket.getInputStream();
        byte[] sink = new byte[4096];
        while (running()) {
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                // still open: keep holding the last byte back
            }
        }
        return false;
    }

    @Override
    String summary() {
        return opened.get() + " connections opened, " + completeButOne.get() + " sent all but the last byte, "
                + endedByNode.get() + " closed by the node, " + refused.get() + " refused or reset, "
                + bytesSent.get() / (1024 * 1024) + " MiB sent";
    }
}
