package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client connection through a {@link FaultProxy}: the client's socket, the server's once the mode lets it be
 * opened, and two directions, each a reader that fills a bounded queue and a writer that drains it as the proxy's mode
 * allows. A direction that reads end of stream passes it on as a half-close, in order after the bytes before it; the
 * connection closes when both directions have.
 */
final class ProxiedConnection {

    private static final int CHUNK_BYTES = 16 * 1024;
    /** Per direction: at most this many chunks (256 KiB) wait in the proxy; beyond that the sender is slowed. */
    private static final int QUEUED_CHUNKS = 16;

    /** Bytes read at {@code readAt} (System.nanoTime); an empty array is end of stream, null a broken source. */
    private record Chunk(byte[] bytes, long readAt) {
    }

    private final FaultProxy proxy;
    private final Socket client;
    private final String name;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicInteger openDirections = new AtomicInteger(2);
    private volatile Socket target;
    private volatile boolean aborted;

    ProxiedConnection(FaultProxy proxy, Socket client, String name) {
        this.proxy = proxy;
        this.client = client;
        this.name = name;
    }

    /** Connects to the server once the mode forwards bytes, then starts forwarding. */
    void startConnecting() {
        spawn(name + "-connect", this::connectWhenAllowed);
    }

    private void connectWhenAllowed() {
        try {
            FaultProxy.State seen = proxy.state();
            while (seen.mode() == FaultProxy.Mode.BLACKHOLE && !aborted) {
                seen = proxy.awaitChange(seen, 0);
            }
            if (seen.closed() || seen.mode() == FaultProxy.Mode.RESET || aborted) {
                abort();
                return;
            }
            client.setTcpNoDelay(true);
            target = proxy.connectTarget();
            if (aborted) {
                abort();
                return;
            }
            spawnDirection("up", client, target);
            spawnDirection("down", target, client);
        } catch (IOException e) {
            abort();
        } catch (InterruptedException e) {
            abort();
        }
    }

    private void spawnDirection(String label, Socket from, Socket to) {
        BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
        spawn(name + "-" + label + "-read", () -> read(from, queue));
        boolean upstream = from == client;
        spawn(name + "-" + label + "-write", () -> write(queue, to, upstream));
    }

    private void read(Socket from, BlockingQueue<Chunk> queue) {
        try {
            InputStream in = from.getInputStream();
            byte[] buffer = new byte[CHUNK_BYTES];
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    queue.put(new Chunk(new byte[0], System.nanoTime()));
                    return;
                }
                queue.put(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime()));
            }
        } catch (IOException e) {
            queue.offer(new Chunk(null, System.nanoTime()));
        } catch (InterruptedException e) {
            // aborted
        }
    }

    private void write(BlockingQueue<Chunk> queue, Socket to, boolean upstream) {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk chunk = queue.take();
                if (upstream) {
                    proxy.claimHold(this);
                }
                if (!awaitTurn(chunk)) {
                    return;
                }
                if (chunk.bytes() == null) {
                    abort();
                    return;
                }
                if (chunk.bytes().length == 0) {
                    to.shutdownOutput();
                    directionDone();
                    return;
                }
                out.write(chunk.bytes());
                out.flush();
            }
        } catch (IOException e) {
            abort();
        } catch (InterruptedException e) {
            // aborted
        }
    }

    /** Waits until the mode lets {@code chunk} go; false if the connection is to be aborted instead. */
    private boolean awaitTurn(Chunk chunk) throws InterruptedException {
        FaultProxy.State state = proxy.state();
        while (true) {
            if (aborted || state.closed() || state.mode() == FaultProxy.Mode.RESET) {
                abort();
                return false;
            }
            if (proxy.holds(this)) {
                state = proxy.awaitChange(state, 0);
                continue;
            }
            if (state.mode() == FaultProxy.Mode.PASS) {
                return true;
            }
            if (state.mode() == FaultProxy.Mode.BLACKHOLE) {
                state = proxy.awaitChange(state, 0);
                continue;
            }
            long wait = chunk.readAt() + state.delay().toNanos() - System.nanoTime();
            if (wait <= 0) {
                return true;
            }
            state = proxy.awaitChange(state, wait);
        }
    }

    private void directionDone() {
        if (openDirections.decrementAndGet() == 0) {
            close(client);
            close(target);
            proxy.forget(this);
        }
    }

    /** Aborts both sides with an RST and stops this connection's threads. Idempotent. */
    void abort() {
        aborted = true;
        FaultProxy.abort(client);
        FaultProxy.abort(target);
        proxy.forget(this);
        Thread self = Thread.currentThread();
        for (Thread thread : threads) {
            if (thread != self) {
                thread.interrupt();
            }
        }
    }

    private void spawn(String threadName, Runnable body) {
        Thread thread = new Thread(body, threadName);
        thread.setDaemon(true);
        threads.add(thread);
        if (aborted) {
            return;
        }
        thread.start();
    }

    private static void close(Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closed anyway
            }
        }
    }
}
