package dev.baton.worker.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;

/**
 * The flood a simulated worker sends to test a backend's backpressure and message budget: results for its
 * subscriptions (for {@code flood;camera} when it has none), every tenth message a malformed line, and a
 * {@code stateReport} after every 1,000, as fast as the socket takes them.
 */
final class Flood {

    /** Messages per round of {@code Builder.flood(true)}. */
    static final int BATCH = 1_000;

    private final WorkerProtocol protocol;
    private final Detections detections;
    private final AtomicLong sent = new AtomicLong();

    /** Makes the next result for a subscription. */
    interface Detections {
        String detection(ObjectNode subscription);
    }

    Flood(WorkerProtocol protocol, Detections detections) {
        this.protocol = protocol;
        this.detections = detections;
    }

    /**
     * One round of the endless flood: a batch to every connection whose last batch has left, so the worker's own
     * queue stays small while a backend that stops reading holds it back through TCP.
     */
    void round(SocketServer server) {
        try {
            if (server == null) {
                return;
            }
            for (WebSocket conn : server.getConnections()) {
                if (conn.isOpen() && !conn.hasBufferedData()) {
                    batch(conn, BATCH);
                }
            }
        } catch (RuntimeException e) {
            // keep flooding: a connection closing mid-batch is expected
        }
    }

    /** Queues {@code messages} flood messages on {@code conn} at once. */
    void batch(WebSocket conn, int messages) {
        List<ObjectNode> subs = protocol.payloads();
        ObjectNode placeholder = WorkerJson.floodPlaceholder();
        for (int i = 0; i < messages; i++) {
            long n = sent.incrementAndGet();
            String text;
            if (n % 1_000 == 0) {
                text = protocol.stateReport();
            } else if (n % 10 == 0) {
                text = WorkerJson.TRUNCATED_DETECTION;
            } else {
                text = detections.detection(subs.isEmpty() ? placeholder : subs.get((int) (n % subs.size())));
            }
            Sender.sendNow(conn, text);
        }
    }

    /** Flood messages sent in all. */
    long sent() {
        return sent.get();
    }
}
