package dev.baton.worker.sim;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

/**
 * The Java-WebSocket server under a {@link SimulatedWorker}: one selector thread, every text message handed to the
 * worker, and every connection's close. {@link #started} opens once it listens or failed to bind ({@link #failure} then says why).
 */
final class SocketServer extends WebSocketServer {

    final CountDownLatch started = new CountDownLatch(1);
    volatile Exception failure;
    private final BiConsumer<WebSocket, String> onMessage;
    private final Consumer<WebSocket> onClose;

    SocketServer(InetSocketAddress address, BiConsumer<WebSocket, String> onMessage, Consumer<WebSocket> onClose) {
        super(address, 1);
        this.onMessage = onMessage;
        this.onClose = onClose;
    }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) { }

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {
        onClose.accept(conn);
    }

    @Override
    public void onMessage(WebSocket conn, String message) {
        onMessage.accept(conn, message);
    }

    @Override
    public void onError(WebSocket conn, Exception ex) {
        if (conn == null) {
            failure = ex;
            started.countDown();
        }
    }

    @Override
    public void onStart() {
        started.countDown();
    }

    /** Stops within a second; an interrupt is kept for the caller. */
    void stopQuietly() {
        try {
            stop(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
