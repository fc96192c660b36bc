package dev.baton.bench.soak;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A flood of raw loopback connections to one port: {@code connections} threads, each opening a connection, running
 * {@link #attack} on it until the node closes it or the flood stops, and opening the next one after a second (so the
 * flood is many connections held open, at most {@code connections} new ones a second, rather than a connect storm
 * whose cost on a shared machine would mostly be the load generator's own). The
 * loops are bounded by {@link #stop}, which closes every open socket (so a blocked write returns) and joins the
 * threads.
 */
abstract class RawSocketFlood {

    private static final long RECONNECT_PAUSE_MS = 1_000;

    private final int port;
    private final int connections;
    private final List<Thread> threads = new ArrayList<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    /** Connections opened, and connections the node ended (closed, reset, or answered and closed). */
    protected final AtomicLong opened = new AtomicLong();
    protected final AtomicLong endedByNode = new AtomicLong();
    protected final AtomicLong refused = new AtomicLong();

    RawSocketFlood(int port, int connections) {
        this.port = port;
        this.connections = connections;
    }

    /** Starts the threads; returns at once. */
    final void start(String name) {
        running = true;
        for (int i = 0; i < connections; i++) {
            int slot = i;
            Thread t = new Thread(null, () -> loop(slot), name + "-" + i, 256 * 1024);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void loop(int slot) {
        while (running) {
            try (Socket socket = new Socket()) {
                open.add(socket);
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
                opened.incrementAndGet();
                if (attack(slot, socket)) {
                    endedByNode.incrementAndGet();
                }
            } catch (IOException e) {
                if (running) {
                    // refused at connect, or reset mid-attack: the node ended it
                    refused.incrementAndGet();
                }
            } finally {
                open.removeIf(Socket::isClosed);
            }
            pause(RECONNECT_PAUSE_MS);
        }
    }

    /**
     * Works one connection until the node ends it (return true) or the flood stops (return false); an
     * {@link IOException} counts as ended by the node.
     */
    protected abstract boolean attack(int slot, Socket socket) throws IOException;

    /** True while the flood runs; attacks poll it between steps. */
    protected final boolean running() {
        return running;
    }

    /** Sleeps, returning early (and quietly) when interrupted. */
    protected static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the flood: closes every open connection and waits for the threads. */
    final void stop() {
        running = false;
        for (Socket socket : open) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        threads.clear();
    }

    /** One line for the report: what the flood did and how the node answered. */
    abstract String summary();
}
