package dev.baton.work.worker;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Opens WebSocket connections to workers: the narrow I/O boundary under the leader's worker connections, passed to
 * {@link dev.baton.work.WorkCluster.Builder#transport}. The default is the JDK's WebSocket client; tests (or a user
 * with another client) may pass their own, e.g. to drive the connections' state machine on a fake clock.
 */
public interface WorkerTransport {

    /**
     * Opens a connection to {@code uri}. The future completes with the socket once the handshake is done, or
     * exceptionally if it fails or takes longer than {@code timeout}. After it completes, {@code handler} is told of
     * every whole text message and of the end of the connection, on any thread.
     */
    CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler);

    /**
     * One open connection. A transport that supports flow control delivers a text message to the {@link Handler} only
     * against demand: {@link #request(long)} adds to it, each whole message (or oversized one) delivered uses one, and
     * while none is left the transport stops reading from the network, so the worker is held back by TCP.
     */
    interface Socket {
        /**
         * Allows {@code n} more messages to be delivered. A new socket has no demand. The default does nothing, for
         * transports without flow control (they deliver every message as it comes).
         */
        default void request(long n) { }

        /** Sends a text message; messages are sent in call order. Fails silently once the socket is closed. */
        void send(String text);

        /** Closes with a normal close handshake. */
        void close();

        /** Drops the connection at once, without a handshake. */
        void abort();
    }

    /** What a connection reports. Calls for one connection never overlap. */
    interface Handler {
        /** A whole text message arrived. */
        void onText(String text);

        /** A text message of {@code chars} characters or more arrived and was discarded as over the size cap. */
        void onOversized(long chars);

        /** The worker closed the connection. */
        void onClosed(int statusCode, String reason);

        /** The connection failed (reset, protocol error). It is closed. */
        void onError(Throwable error);
    }
}
