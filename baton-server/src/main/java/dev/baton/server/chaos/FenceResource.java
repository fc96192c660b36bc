package dev.baton.server.chaos;

import dev.baton.core.fencing.Fence;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared resource that the nodes of a fault-harness run write to (the hidden {@code baton node --fenced-writes-to
 * HOST:PORT}), so that every backend, serverless ones included, can be checked for writes from a stale leader. It
 * listens on a free port of 127.0.0.1 and speaks one line per request:
 *
 * <pre>
 * client: write &lt;term&gt; &lt;nodeId&gt; &lt;seq&gt;\n
 * server: ok &lt;highestTerm&gt;\n       (admitted)
 *         refused &lt;highestTerm&gt;\n  (fencing on, and a newer term was admitted before)
 *         error &lt;message&gt;\n        (not a write request; the connection stays open)
 * </pre>
 *
 * <p>With {@code fencing} it admits a write iff its term is at least the highest term admitted so far (a
 * {@link Fence}); without, it is the naive resource of the seeds, which accepts every write, and the harness's checker
 * is expected to find the stale writes that fencing would have refused. {@code highestTerm} is the highest term
 * admitted so far (written, without fencing). Requests are decided one at a time, in the order they arrive.
 * Thread-safe; one daemon thread per connection; {@link #close()} closes the port and every connection.
 */
public final class FenceResource implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FenceResource.class);
    private static final String HOST = "127.0.0.1";
    /** Longest request line read; a longer one closes the connection (bounded memory per client). */
    private static final int MAX_LINE = 1_000;

    private final boolean fencing;
    private final ServerSocket server;
    private final Fence fence = new Fence(0);
    private final AtomicLong highestWritten = new AtomicLong();
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private FenceResource(boolean fencing, ServerSocket server) {
        this.fencing = fencing;
        this.server = server;
    }

    /**
     * Starts a resource on a free port of 127.0.0.1.
     *
     * @param fencing whether to refuse a write whose term is below the highest admitted so far
     * @throws UncheckedIOException if no port can be bound
     */
    public static FenceResource start(boolean fencing) {
        ServerSocket server;
        try {
            server = new ServerSocket(0, 50, InetAddress.getByName(HOST));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a port on " + HOST + " for the fenced resource", e);
        }
        FenceResource resource = new FenceResource(fencing, server);
        Thread acceptor = new Thread(resource::acceptLoop, "fence-resource-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
        return resource;
    }

    /** The port on 127.0.0.1 the nodes connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** {@code 127.0.0.1:PORT}, as {@code --fenced-writes-to} takes it. */
    public String address() {
        return HOST + ":" + port();
    }

    /** Whether this resource fences (refuses older terms). */
    public boolean fencing() {
        return fencing;
    }

    /** The highest term admitted so far; 0 before the first write. */
    public long highestTerm() {
        return fencing ? fence.highestTerm() : highestWritten.get();
    }

    /** How many writes were admitted so far. */
    public long admitted() {
        return admitted.get();
    }

    /** How many writes were refused so far (always 0 without fencing). */
    public long refused() {
        return refused.get();
    }

    /**
     * Decides one request line and returns the answer line (without the newline). Synchronized: requests are decided
     * one at a time, so the highest term reported with each answer is the one that decided it.
     */
    synchronized String decide(String request) {
        String[] words = request.strip().split("\\s+");
        if (words.length != 4 || !words[0].equals("write")) {
            return "error expected 'write <term> <nodeId> <seq>'";
        }
        long term;
        try {
            term = Long.parseLong(words[1]);
            Long.parseLong(words[3]);
        } catch (NumberFormatException e) {
            return "error term and seq must be numbers";
        }
        if (fencing) {
            if (fence.admit(term)) {
                admitted.incrementAndGet();
                return "ok " + fence.highestTerm();
            }
            refused.incrementAndGet();
            return "refused " + fence.highestTerm();
        }
        admitted.incrementAndGet();
        return "ok " + highestWritten.accumulateAndGet(term, Math::max);
    }

    /** Closes the port and every connection. Idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            log.debug("closing the fenced resource's port", e);
        }
        for (Socket socket : connections) {
            closeQuietly(socket);
        }
    }

    @Override
    public String toString() {
        return "FenceResource{" + address() + (fencing ? ", fencing" : ", no fencing") + "}";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("{} stopped accepting", this, e);
                }
                return;
            }
            connections.add(socket);
            if (closed) {
                closeQuietly(socket);
                return;
            }
            Thread thread = new Thread(() -> serve(socket), "fence-resource-" + port() + "-client");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void serve(Socket socket) {
        try (socket; BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.UTF_8), MAX_LINE)) {
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            String line;
            while ((line = readLine(in)) != null) {
                if (line.isBlank()) {
                    continue;
                }
                out.write((decide(line) + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // the node went away or was reset: it reconnects
        } finally {
            connections.remove(socket);
        }
    }

    /** One line, at most {@link #MAX_LINE} characters; null at end of stream. */
    private static String readLine(BufferedReader in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                return line.toString();
            }
            if (line.length() >= MAX_LINE) {
                throw new IOException("request line too long");
            }
            line.append((char) c);
        }
        return line.length() == 0 ? null : line.toString();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closed anyway
        }
    }
}
