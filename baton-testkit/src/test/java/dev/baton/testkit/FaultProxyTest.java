package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link FaultProxy} in front of a small echo server on loopback: each mode as a client sees it. */
class FaultProxyTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private EchoServer echo;
    private FaultProxy proxy;
    private final List<Socket> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        echo = EchoServer.start();
        proxy = FaultProxy.start("127.0.0.1", echo.port());
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket client : clients) {
            client.close();
        }
        proxy.close();
        echo.close();
    }

    @Test
    void passForwardsBothWays() throws IOException {
        Socket client = connect();

        send(client, "hello");

        assertThat(receive(client, 5)).isEqualTo("hello");
        assertThat(proxy.host()).isEqualTo("127.0.0.1");
    }

    @Test
    void delayHoldsEveryChunkInBothDirectionsAndKeepsTheirOrder() throws IOException {
        Socket client = connect();
        send(client, "warm");
        assertThat(receive(client, 4)).isEqualTo("warm");
        Duration latency = Duration.ofMillis(200);
        proxy.delay(latency);

        long before = System.nanoTime();
        send(client, "a");
        send(client, "b");
        send(client, "c");
        String echoed = receive(client, 3);
        long elapsed = System.nanoTime() - before;

        assertThat(echoed).isEqualTo("abc");
        // A lower bound only: the request and the echo each waited the latency in the proxy.
        assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(latency.multipliedBy(2));
    }

    @Test
    void blackholeKeepsConnectionsOpenAndForwardsNothingUntilPass() throws IOException {
        Socket before = connect();
        send(before, "x");
        assertThat(receive(before, 1)).isEqualTo("x");
        proxy.blackhole();

        send(before, "held");
        Socket during = connect();
        send(during, "new");

        assertNothingArrives(before);
        assertNothingArrives(during);
        assertThat(echo.accepted()).as("a connection opened in a blackhole does not reach the server").isEqualTo(1);

        proxy.pass();

        assertThat(receive(before, 4)).isEqualTo("held");
        assertThat(receive(during, 3)).isEqualTo("new");
    }

    @Test
    void aHeldRequestWaitsWhileLaterOnesOnOtherConnectionsPassAndArrivesOnPass() throws IOException {
        Socket first = connect();
        Socket second = connect();
        send(first, "a");
        send(second, "b");
        assertThat(receive(first, 1)).isEqualTo("a");
        assertThat(receive(second, 1)).isEqualTo("b");
        proxy.holdNextRequest();

        send(first, "late");
        await().atMost(WAIT).until(proxy::holding);
        send(second, "next");
        Socket third = connect();
        send(third, "new");

        assertThat(receive(second, 4)).as("a later call on another connection").isEqualTo("next");
        assertThat(receive(third, 3)).isEqualTo("new");
        assertNothingArrives(first);

        proxy.pass();

        assertThat(receive(first, 4)).isEqualTo("late");
        assertThat(proxy.holding()).isFalse();
    }

    @Test
    void resetAbortsCurrentAndNewConnectionsUntilPass() throws IOException {
        Socket before = connect();
        send(before, "x");
        assertThat(receive(before, 1)).isEqualTo("x");

        proxy.reset();

        assertThatThrownBy(() -> before.getInputStream().read()).isInstanceOf(SocketException.class)
                .hasMessageContaining("reset");
        Socket during = connect();
        assertThatThrownBy(() -> {
            during.getOutputStream().write('y');
            during.getInputStream().read();
        }).isInstanceOf(SocketException.class);

        proxy.pass();

        Socket after = connect();
        send(after, "back");
        assertThat(receive(after, 4)).isEqualTo("back");
    }

    @Test
    void retargetAbortsCurrentConnectionsAndSendsNewOnesToTheNewServer() throws IOException {
        Socket before = connect();
        send(before, "x");
        assertThat(receive(before, 1)).isEqualTo("x");
        try (EchoServer second = EchoServer.start()) {

            proxy.retarget("127.0.0.1", second.port());

            assertThatThrownBy(() -> before.getInputStream().read()).isInstanceOf(SocketException.class);
            Socket after = connect();
            send(after, "moved");
            assertThat(receive(after, 5)).isEqualTo("moved");
            assertThat(second.accepted()).isEqualTo(1);
            assertThat(echo.accepted()).isEqualTo(1);
        }
    }

    @Test
    void closeStopsAcceptingAndEndsConnections() throws IOException {
        Socket client = connect();
        send(client, "x");
        assertThat(receive(client, 1)).isEqualTo("x");

        proxy.close();

        assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
        assertThatThrownBy(() -> new Socket(proxy.host(), proxy.port()).close()).isInstanceOf(IOException.class);
        assertThatThrownBy(proxy::pass).isInstanceOf(IllegalStateException.class);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(proxy.host(), proxy.port());
        socket.setSoTimeout((int) WAIT.toMillis());
        clients.add(socket);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Reads exactly {@code n} bytes (the socket's timeout bounds the wait). */
    private static String receive(Socket socket, int n) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] bytes = in.readNBytes(n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Nothing readable for a while: the best a test can say about bytes that must not arrive. */
    private static void assertNothingArrives(Socket socket) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(300);
        try {
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    /** Echoes every byte back on every connection it accepts; counts the connections. */
    private static final class EchoServer implements AutoCloseable {
        private final ServerSocket server;
        private final AtomicInteger accepted = new AtomicInteger();
        private final List<Socket> sockets = new ArrayList<>();

        private EchoServer(ServerSocket server) {
            this.server = server;
        }

        static EchoServer start() {
            try {
                EchoServer echo = new EchoServer(new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")));
                Thread acceptor = new Thread(echo::acceptLoop, "echo-accept");
                acceptor.setDaemon(true);
                acceptor.start();
                return echo;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        int port() {
            return server.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    accepted.incrementAndGet();
                    synchronized (sockets) {
                        sockets.add(socket);
                    }
                    Thread thread = new Thread(() -> echo(socket), "echo-" + accepted.get());
                    thread.setDaemon(true);
                    thread.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void echo(Socket socket) {
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                byte[] buffer = new byte[1024];
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
        }
    }
}
