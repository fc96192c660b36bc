package dev.baton.server;

import dev.baton.core.Leadership;
import dev.baton.core.store.FencedWriteResult;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The node's side of an external fenced resource (the hidden {@code --fenced-writes-to HOST:PORT}, served by
 * {@code dev.baton.server.chaos.FenceResource}), over a one-line TCP protocol:
 *
 * <pre>
 * client: write &lt;term&gt; &lt;nodeId&gt; &lt;seq&gt;\n
 * server: ok &lt;highestTerm&gt;\n       (admitted)
 *         refused &lt;highestTerm&gt;\n  (a newer term was admitted before)
 * </pre>
 *
 * <p>One persistent connection, opened on the first write and again after any failure. Each write, connecting
 * included, is bounded by its timeout: a write that gets no well-formed answer in time has an unknown outcome (the
 * resource may have applied it), and its connection is dropped so that a late answer is never taken for the next
 * write's. Node ids must not contain whitespace (store node ids and {@code HOST:PORT} ids do not).
 */
final class FenceClient implements FencedDestination {

    private static final int MAX_ANSWER = 200;

    private final ChaosSettings.FenceAddress address;
    private volatile Socket socket;
    private InputStream in;
    private OutputStream out;

    FenceClient(ChaosSettings.FenceAddress address) {
        this.address = address;
    }

    @Override
    public FencedWriteResult write(Leadership leadership, long seq, Duration timeout) throws NoAnswer {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            connect(deadline);
            out.write(("write " + leadership.term() + " " + leadership.nodeId() + " " + seq + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            return parse(readLine(deadline));
        } catch (IOException | RuntimeException e) {
            disconnect();
            String reason = e instanceof SocketTimeoutException ? "got no answer within " + timeout.toMillis() + " ms"
                    : "failed: " + e;
            throw new NoAnswer("fenced resource " + address.format() + " " + reason, e);
        }
    }

    private void connect(long deadline) throws IOException {
        if (socket != null) {
            return;
        }
        Socket opened = new Socket();
        try {
            opened.setTcpNoDelay(true);
            opened.connect(new InetSocketAddress(address.host(), address.port()), remainingMillis(deadline));
            in = new BufferedInputStream(opened.getInputStream());
            out = opened.getOutputStream();
            socket = opened;
        } catch (IOException e) {
            opened.close();
            throw e;
        }
    }

    private String readLine(long deadline) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            socket.setSoTimeout(remainingMillis(deadline));
            int b = in.read();
            if (b < 0) {
                throw new IOException("the resource closed the connection");
            }
            if (b == '\n') {
                return line.toString();
            }
            if (line.length() >= MAX_ANSWER) {
                throw new IOException("answer longer than " + MAX_ANSWER + " characters");
            }
            line.append((char) b);
        }
    }

    /** At least 1 ms, since 0 means "no timeout" to a socket; a spent deadline times out at once. */
    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000));
    }

    private static FencedWriteResult parse(String answer) throws IOException {
        String[] words = answer.strip().split(" ");
        if (words.length == 2 && (words[0].equals("ok") || words[0].equals("refused"))) {
            try {
                return new FencedWriteResult(words[0].equals("ok"), Long.parseLong(words[1]));
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IOException("unexpected answer '" + answer + "'");
    }

    private void disconnect() {
        Socket open = socket;
        socket = null;
        if (open != null) {
            try {
                open.close();
            } catch (IOException e) {
                // closed anyway
            }
        }
    }

    /** Closes the connection; a write blocked on it fails at once. */
    @Override
    public void close() {
        disconnect();
    }
}
