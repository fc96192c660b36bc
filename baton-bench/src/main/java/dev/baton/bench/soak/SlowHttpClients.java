package dev.baton.bench.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flood (b): slow HTTP clients. Each connection sends the headers of a {@code PUT /work/items/...} announcing a
 * 4 KiB body, then dribbles the body one byte a second (far below the node's minimum body rate), and reconnects
 * when the node answers or closes. The node's answers are counted by status line.
 */
final class SlowHttpClients extends RawSocketFlood {

    private static final int BODY_BYTES = 4096;

    private final int port;
    private final Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
    private final AtomicLong bytesDribbled = new AtomicLong();

    SlowHttpClients(int port, int connections) {
        super(port, connections);
        this.port = port;
    }

    @Override
    protected boolean attack(int slot, Socket socket) throws IOException {
        socket.setSoTimeout(1_000);
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        String head = "PUT /work/items/display-slow%3Bcamera-" + slot + " HTTP/1.1\r\n"
                + "Host: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + BODY_BYTES + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        for (int sent = 0; sent < BODY_BYTES && running(); sent++) {
            out.write(sent == 0 ? '{' : ' ');
            out.flush();
            bytesDribbled.incrementAndGet();
            // Waiting for an answer for up to a second is also the dribble's pace.
            try {
                byte[] buffer = new byte[512];
                int n = in.read(buffer);
                if (n < 0) {
                    answers.computeIfAbsent("closed without an answer", k -> new AtomicLong()).incrementAndGet();
                    return true;
                }
                String text = new String(buffer, 0, n, StandardCharsets.US_ASCII);
                int eol = text.indexOf('\r');
                String status = eol > 0 ? text.substring(0, eol) : text;
                answers.computeIfAbsent(status.replace("HTTP/1.1 ", ""), k -> new AtomicLong()).incrementAndGet();
                return true;
            } catch (SocketTimeoutException e) {
                // no answer yet: dribble the next byte
            }
        }
        return false;
    }

    @Override
    String summary() {
        return opened.get() + " connections opened, " + endedByNode.get() + " ended by the node (" + answers
                + "), " + refused.get() + " refused or reset, " + bytesDribbled.get() + " body bytes dribbled";
    }
}
