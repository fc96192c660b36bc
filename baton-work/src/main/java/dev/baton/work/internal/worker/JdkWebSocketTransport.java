package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerTransport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@link WorkerTransport} on the JDK's {@code java.net.http.WebSocket} client. Fragmented text messages are joined;
 * one larger than the cap is not buffered but skipped to its last fragment and reported as oversized, so a worker
 * cannot make the backend hold more than the cap per connection.
 *
 * <p>Reading is driven by demand ({@link Socket#request(long)}): one unit per whole message handed to the handler.
 * Fragments of a message, binary frames (ignored) and pings are read without using demand, since they hand nothing
 * over. With no demand left the JDK client stops reading the socket, so a worker that sends faster than the backend
 * handles its messages fills its own TCP buffers instead of the backend's heap.
 */
public final class JdkWebSocketTransport implements WorkerTransport {

    private final HttpClient client;
    private final int maxMessageChars;

    /** A transport with its own {@link HttpClient}, discarding text messages longer than {@code maxMessageChars}. */
    public JdkWebSocketTransport(int maxMessageChars) {
        this(HttpClient.newHttpClient(), maxMessageChars);
    }

    public JdkWebSocketTransport(HttpClient client, int maxMessageChars) {
        this.client = client;
        this.maxMessageChars = maxMessageChars;
    }

    @Override
    public CompletableFuture<Socket> open(URI uri, Duration timeout, Handler handler) {
        Reader reader = new Reader(handler, maxMessageChars);
        return client.newWebSocketBuilder().connectTimeout(timeout).buildAsync(uri, reader)
                .orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .thenApply(JdkSocket::new);
    }

    private static final class JdkSocket implements Socket {
        private final WebSocket ws;
        // The JDK allows one outstanding send at a time: chain them.
        private CompletableFuture<?> sending = CompletableFuture.completedFuture(null);

        JdkSocket(WebSocket ws) {
            this.ws = ws;
        }

        @Override
        public synchronized void send(String text) {
            sending = sending.handle((r, e) -> null)
                    .thenCompose(ignored -> ws.isOutputClosed() ? CompletableFuture.completedFuture(null)
                            : ws.sendText(text, true));
        }

        @Override
        public void request(long n) {
            if (n > 0) {
                ws.request(n);
            }
        }

        @Override
        public void close() {
            if (!ws.isOutputClosed()) {
                ws.sendClose(WebSocket.NORMAL_CLOSURE, "closed").exceptionally(e -> null)
                        .orTimeout(1, java.util.concurrent.TimeUnit.SECONDS)
                        .whenComplete((r, e) -> ws.abort());
            } else {
                ws.abort();
            }
        }

        @Override
        public void abort() {
            ws.abort();
        }
    }

    private static final class Reader implements WebSocket.Listener {
        private final Handler handler;
        private final int maxChars;
        private final StringBuilder partial = new StringBuilder();
        private long skipped = -1;

        Reader(Handler handler, int maxChars) {
            this.handler = handler;
            this.maxChars = maxChars;
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            // No demand until the connection asks for messages: the JDK's default would request one here.
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            if (skipped >= 0) {
                skipped += data.length();
            } else if (partial.length() + data.length() > maxChars) {
                skipped = partial.length() + (long) data.length();
                partial.setLength(0);
                partial.trimToSize();
            } else {
                partial.append(data);
            }
            if (last) {
                if (skipped >= 0) {
                    long chars = skipped;
                    skipped = -1;
                    handler.onOversized(chars);
                } else {
                    String text = partial.toString();
                    partial.setLength(0);
                    handler.onText(text);
                }
            } else {
                webSocket.request(1); // the rest of this message: it is bounded by the cap, and uses no demand
            }
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            // The seed's protocol is text only; binary frames are ignored, and hand nothing over, so use no demand.
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            handler.onClosed(statusCode, reason);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            handler.onError(error);
        }
    }
}
