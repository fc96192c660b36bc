package dev.baton.bench.http;

import dev.baton.bench.stats.Summary;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed-rate, open-loop HTTP/1.1 load: request {@code i} is due at {@code start + i / rate}, is queued then whether
 * or not earlier ones have been answered, and its latency counts from when it was due. A server that stalls shows
 * up as latency of every request it delayed (no coordinated omission, which a closed-loop client such as wrk without
 * a rate hides).
 *
 * <p>Requests go out over a few keep-alive connections with plain {@link Socket}s, one worker thread per connection,
 * not through {@link java.net.http.HttpClient}: on the 2-core benchmark machine the JDK client spent about 0.9 of a
 * core on 1,000 requests per second (this loop about 0.1), taking that time from the server it was measuring. The
 * client understands what a node answers: a status line, headers, and a body sized by {@code Content-Length} or
 * sent chunked.
 */
final class OpenLoopLoad {

    /**
     * What one run saw: latencies of the 200 answers, how late the sender itself was (due -> queued for a
     * connection: the load generator's own stalls), and how many requests failed.
     */
    record Result(Summary latency, Summary senderLag, int ok, int failed, double seconds, double achievedPerSecond) {
    }

    private record Task(int index, long due) {
    }

    private static final Task STOP = new Task(-1, 0);

    private OpenLoopLoad() {
    }

    /**
     * Sends {@code GET uri} at {@code perSecond} over {@code connections} connections, for {@code warmup}
     * (discarded) and then {@code measured}.
     */
    static Result run(URI uri, int perSecond, int connections, Duration warmup, Duration measured)
            throws InterruptedException {
        long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
        int warmupCount = (int) (warmup.toNanos() / interval);
        int measuredCount = (int) (measured.toNanos() / interval);
        int total = warmupCount + measuredCount;
        long[] latencies = new long[total];
        boolean[] succeeded = new boolean[total];
        long[] lag = new long[measuredCount];
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch answered = new CountDownLatch(total);
        BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
        byte[] request = ("GET " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nAccept: application/json\r\nUser-Agent: baton-bench\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            Thread worker = new Thread(() -> work(uri, request, queue, latencies, succeeded, failed, warmupCount,
                    answered), "open-loop-" + c);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (int i = 0; i < total; i++) {
            long due = start + i * interval;
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            if (i >= warmupCount) {
                lag[i - warmupCount] = System.nanoTime() - due;
            }
            queue.add(new Task(i, due));
        }
        long sentAll = System.nanoTime();
        boolean done = answered.await(30, TimeUnit.SECONDS);
        workers.forEach(worker -> queue.add(STOP));
        if (!done) {
            throw new IllegalStateException("requests still unanswered 30 s after the last was due");
        }
        long[] ok = new long[measuredCount];
        int kept = 0;
        for (int i = warmupCount; i < total; i++) {
            if (succeeded[i]) {
                ok[kept++] = latencies[i];
            }
        }
        if (kept == 0) {
            throw new IllegalStateException("none of " + measuredCount + " requests to " + uri + " was answered 200");
        }
        double seconds = (sentAll - (start + warmupCount * interval)) / 1e9;
        return new Result(Summary.of(Arrays.copyOf(ok, kept)), Summary.of(lag), kept, failed.get(), seconds,
                measuredCount / seconds);
    }

    /** One connection's loop: take a due request, send it, read the answer, record; reconnect after an error. */
    private static void work(URI uri, byte[] request, BlockingQueue<Task> queue, long[] latencies,
            boolean[] succeeded, AtomicInteger failed, int warmupCount, CountDownLatch answered) {
        Socket socket = null;
        InputStream in = null;
        try {
            while (true) {
                Task task = queue.take();
                if (task == STOP) {
                    return;
                }
                int status;
                boolean drop;
                try {
                    if (socket == null) {
                        socket = new Socket();
                        socket.setTcpNoDelay(true);
                        socket.setSoTimeout(10_000);
                        socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2_000);
                        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write(request);
                    out.flush();
                    int answer = readResponse(in);
                    status = Math.abs(answer);
                    drop = answer < 0;
                } catch (IOException | NumberFormatException e) {
                    status = 0;
                    drop = true;
                }
                if (drop) {
                    closeQuietly(socket);
                    socket = null;
                    in = null;
                }
                latencies[task.index()] = System.nanoTime() - task.due();
                succeeded[task.index()] = status == 200;
                if (status != 200 && task.index() >= warmupCount) {
                    failed.incrementAndGet();
                }
                answered.countDown();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(socket);
        }
    }

    /**
     * Reads one response and returns its status, negated if the connection must be dropped afterwards (it said
     * {@code Connection: close}, or sent a body without a length).
     */
    private static int readResponse(InputStream in) throws IOException {
        String statusLine = readLine(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.contains("chunked");
                case "connection" -> close = value.contains("close");
                default -> {
                }
            }
        }
        if (chunked) {
            for (long size = chunkSize(in); size > 0; size = chunkSize(in)) {
                skip(in, size);
                readLine(in);
            }
            for (String trailer = readLine(in); !trailer.isEmpty(); trailer = readLine(in)) {
                // Trailers are not used by the node; read past them.
            }
        } else if (length >= 0) {
            skip(in, length);
        } else {
            close = true;
        }
        if (in.available() > 0) {
            throw new IOException("unexpected bytes after the response");
        }
        return close ? -status : status;
    }

    private static long chunkSize(InputStream in) throws IOException {
        String line = readLine(in);
        int semicolon = line.indexOf(';');
        return Long.parseLong((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
    }

    private static void skip(InputStream in, long count) throws IOException {
        long left = count;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed inside a body");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    private static void closeQuietly(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // Nothing to do: the connection is being dropped.
            }
        }
    }
}
