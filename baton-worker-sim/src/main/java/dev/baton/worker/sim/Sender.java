package dev.baton.worker.sim;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.TextFrame;

/**
 * How a simulated worker sends: at once, or after the reply delay a test set (on the worker's timer), and never
 * failing on a connection that closed meanwhile.
 */
final class Sender {

    private final ScheduledExecutorService timer;
    private volatile Duration replyDelay = Duration.ZERO;

    Sender(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    void setReplyDelay(Duration delay) {
        this.replyDelay = Objects.requireNonNull(delay, "delay");
    }

    /** Sends {@code text} to every connection of {@code server} (none if it is null: killed or closed). */
    void broadcast(SocketServer server, String text) {
        if (server != null) {
            for (WebSocket conn : server.getConnections()) {
                send(conn, text);
            }
        }
    }

    /** Sends {@code text} on {@code conn}, after the reply delay if one is set. */
    void send(WebSocket conn, String text) {
        Duration delay = replyDelay;
        if (delay.isZero()) {
            sendNow(conn, text);
        } else {
            try {
                timer.schedule(() -> sendNow(conn, text), delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closed
            }
        }
    }

    /**
     * Sends unless the connection has closed; a close racing the send is not an error. The text goes out as a frame
     * built here: {@code WebSocket.send(String)} would check that the UTF-8 it has just encoded is valid UTF-8, a
     * fifth of a simulated worker's CPU at tens of thousands of results a second, which a benchmark's machine
     * would otherwise take from the code it measures.
     */
    static void sendNow(WebSocket conn, String text) {
        if (conn.isOpen()) {
            try {
                TextFrame frame = new TextFrame();
                frame.setPayload(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
                conn.sendFrame(frame);
            } catch (RuntimeException e) {
                // the connection closed between the check and the send
            }
        }
    }
}
