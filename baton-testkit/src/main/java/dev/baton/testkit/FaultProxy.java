package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy in front of one server, whose links a test or the fault harness can disturb while clients stay
 * connected: {@link #pass()} (forward as is, the default), {@link #delay(Duration)} (every chunk, both directions,
 * arrives that much later, in order), {@link #blackhole()} (connections stay open and nothing moves, like a network
 * partition) and {@link #reset()} (every connection is aborted with a TCP RST, and new ones too until the next mode).
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start("127.0.0.1", redis.port())) {
 *     CoordinationStore store = RedisStore.connect("redis://" + proxy.host() + ":" + proxy.port());
 *     proxy.blackhole();   // the store's calls now hang
 *     proxy.pass();        // and complete
 * }
 * }</pre>
 *
 * <p>{@link #holdNextRequest()} is the straggler: the next connection that sends anything is held, both ways, while
 * every other connection carries on, until {@link #pass()} delivers what it holds, late. A client with a pool (one
 * statement per connection) sees one call stuck far past its timeout while its later calls overtake it.
 *
 * <p><b>Blackhole holds, it does not lose.</b> Like TCP across a partition, bytes sent during a blackhole are held
 * (in a bounded buffer per direction, then in the sender's socket buffer: the sender is slowed, never answered) and
 * arrive after {@link #pass()}; a connection accepted during a blackhole reaches the server only then. A test that
 * wants connections to break uses {@link #reset()}.
 *
 * <p>Every method is thread-safe and takes effect at once for current and new connections. Each connection runs on
 * four daemon threads (a reader and a writer per direction); {@link #close()} aborts every connection and stops them.
 */
public final class FaultProxy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);
    private static final String HOST = "127.0.0.1";
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
    private static final Duration ACCEPTOR_EXIT = Duration.ofSeconds(5);

    /** What the proxy does with the bytes and connections it sees. */
    enum Mode {
        PASS, DELAY, BLACKHOLE, RESET
    }

    /** The mode and the delay together, so that a reader never sees one without the other. */
    record State(Mode mode, Duration delay, boolean closed) {
    }

    /** Where new connections go; {@link #retarget} changes it. */
    private record Target(String host, int port) {
    }

    private volatile Target target;
    private final ServerSocket server;
    private volatile Thread acceptor;
    private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private volatile State state = new State(Mode.PASS, Duration.ZERO, false);
    /** Whether the next connection to send bytes is to be held. Guarded by {@link #lock}. */
    private boolean holdArmed;
    /** The connection held by {@link #holdNextRequest()}, or null. Guarded by {@link #lock}. */
    private ProxiedConnection held;

    private FaultProxy(String targetHost, int targetPort, ServerSocket server) {
        this.target = new Target(targetHost, targetPort);
        this.server = server;
    }

    /**
     * Starts a proxy on a free port of 127.0.0.1 that forwards to {@code targetHost:targetPort}, in pass mode.
     *
     * @throws UncheckedIOException if no port can be bound
     */
    public static FaultProxy start(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort < 1 || targetPort > 65_535) {
            throw new IllegalArgumentException("targetPort must be within 1..65535, was " + targetPort);
        }
        ServerSocket server;
        try {
            server = new ServerSocket(0, 50, InetAddress.getByName(HOST));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a proxy port on " + HOST, e);
        }
        FaultProxy proxy = new FaultProxy(targetHost, targetPort, server);
        Thread acceptor = new Thread(proxy::acceptLoop, "fault-proxy-" + server.getLocalPort() + "-accept");
        acceptor.setDaemon(true);
        proxy.acceptor = acceptor;
        acceptor.start();
        return proxy;
    }

    /** The address clients connect to instead of the target's: always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** The port clients connect to instead of the target's. */
    public int port() {
        return server.getLocalPort();
    }

    /** Forwards every byte as it comes (the default); bytes held by a blackhole, a delay or a held connection flow now. */
    public void pass() {
        synchronized (lock) {
            holdArmed = false;
            held = null;
        }
        setState(Mode.PASS, Duration.ZERO);
    }

    /**
     * Holds the next connection that sends anything (what it sends and what answers it) until {@link #pass()}, while
     * every other connection, current or new, carries on in the current mode.
     */
    public void holdNextRequest() {
        synchronized (lock) {
            if (state.closed()) {
                throw new IllegalStateException("the proxy is closed");
            }
            holdArmed = true;
            held = null;
        }
    }

    /** Whether a connection is held now (armed and struck). */
    public boolean holding() {
        synchronized (lock) {
            return held != null;
        }
    }

    /** Called before {@code connection} forwards a chunk from its client: becomes the held one if the hold is armed. */
    void claimHold(ProxiedConnection connection) {
        synchronized (lock) {
            if (holdArmed) {
                holdArmed = false;
                held = connection;
                lock.notifyAll();
            }
        }
    }

    /** Whether {@code connection} is held now. */
    boolean holds(ProxiedConnection connection) {
        synchronized (lock) {
            return held == connection;
        }
    }

    /** Delays every chunk, in both directions, by {@code latency} from the moment the proxy read it; order is kept. */
    public void delay(Duration latency) {
        Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, was " + latency);
        }
        setState(Mode.DELAY, latency);
    }

    /** Forwards nothing, in either direction, on current and new connections; every connection stays open. */
    public void blackhole() {
        setState(Mode.BLACKHOLE, Duration.ZERO);
    }

    /**
     * Aborts every current connection with a TCP RST (SO_LINGER 0), on both the client's and the server's side, and
     * aborts every new connection the same way until another mode is set.
     */
    public void reset() {
        setState(Mode.RESET, Duration.ZERO);
        for (ProxiedConnection connection : connections) {
            connection.abort();
        }
    }

    /**
     * Sends new connections to {@code targetHost:targetPort} from now on and aborts every current one (with an RST, as
     * {@link #reset()} does), so that clients reconnect there: a server replaced behind an address that stays.
     */
    public void retarget(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort < 1 || targetPort > 65_535) {
            throw new IllegalArgumentException("targetPort must be within 1..65535, was " + targetPort);
        }
        target = new Target(targetHost, targetPort);
        for (ProxiedConnection connection : connections) {
            connection.abort();
        }
    }

    /** Stops accepting, aborts every connection and ends the proxy's threads. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            state = new State(Mode.RESET, Duration.ZERO, true);
            lock.notifyAll();
        }
        try {
            server.close();
        } catch (IOException e) {
            log.debug("closing proxy port {}", port(), e);
        }
        // The JDK closes a listening socket only once the thread blocked in accept() has left it: until then the port
        // still takes connections. Wait for that thread, so that the port is closed when close() returns.
        Thread accepting = acceptor;
        if (accepting != null && accepting != Thread.currentThread()) {
            try {
                accepting.join(ACCEPTOR_EXIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (ProxiedConnection connection : connections) {
            connection.abort();
        }
    }

    @Override
    public String toString() {
        Target to = target;
        return "FaultProxy{" + HOST + ":" + port() + " -> " + to.host() + ":" + to.port() + ", " + state.mode() + "}";
    }

    private void setState(Mode mode, Duration delay) {
        synchronized (lock) {
            if (state.closed()) {
                throw new IllegalStateException("the proxy is closed");
            }
            state = new State(mode, delay, false);
            lock.notifyAll();
        }
    }

    State state() {
        return state;
    }

    /**
     * Waits until {@code ready} holds for the current state or the proxy closes, at most {@code maxNanos} (unbounded
     * when zero or less), and returns the state then. Pumps call it so that a mode change wakes them at once.
     */
    State awaitChange(State seen, long maxNanos) throws InterruptedException {
        synchronized (lock) {
            if (state == seen && !state.closed()) {
                if (maxNanos <= 0) {
                    lock.wait();
                } else {
                    long millis = maxNanos / 1_000_000;
                    lock.wait(millis, (int) (maxNanos % 1_000_000));
                }
            }
            return state;
        }
    }

    private void acceptLoop() {
        while (!state.closed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!state.closed()) {
                    log.warn("proxy {} stopped accepting", this, e);
                }
                return;
            }
            if (state.mode() == Mode.RESET) {
                abort(client);
                continue;
            }
            ProxiedConnection connection = new ProxiedConnection(this, client,
                    "fault-proxy-" + port() + "-" + connectionCount.incrementAndGet());
            connections.add(connection);
            connection.startConnecting();
        }
    }

    /** Opens the server side of a connection. */
    Socket connectTarget() throws IOException {
        Socket target = new Socket();
        try {
            Target to = this.target;
            target.connect(new InetSocketAddress(to.host(), to.port()), CONNECT_TIMEOUT_MILLIS);
            target.setTcpNoDelay(true);
            return target;
        } catch (IOException e) {
            target.close();
            throw e;
        }
    }

    void forget(ProxiedConnection connection) {
        connections.remove(connection);
    }

    /** Closes {@code socket} with an RST rather than a FIN. */
    static void abort(Socket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            // already closed: nothing to abort
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
