package dev.baton.work.worker;

/**
 * The seed's worker events, in Java form. {@link #name()} is the seed's event name ({@code worker:online}, ...), for
 * logs and JSON.
 */
public sealed interface WorkerEvent {

    /** The worker's WebSocket URL. */
    String url();

    /** The seed's event name. */
    String name();

    /** {@code worker:connecting}: a connection attempt starts (first or reconnect). */
    record Connecting(String url, int attempt) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:connecting";
        }
    }

    /** {@code worker:connected}: the WebSocket is open; the worker is not online until its first state report. */
    record Connected(String url) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:connected";
        }
    }

    /** {@code worker:online}: a state report arrived on an open connection. */
    record Online(String url) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:online";
        }
    }

    /** {@code worker:offline}: an online worker's connection was lost or no state report came in time. */
    record Offline(String url, String reason) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:offline";
        }
    }

    /** {@code worker:disconnected}: the WebSocket closed. */
    record Disconnected(String url, String reason) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:disconnected";
        }
    }

    /** {@code worker:websocket_error}: a connection attempt failed or an open connection broke. */
    record WebSocketError(String url, String error) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:websocket_error";
        }
    }

    /**
     * {@code worker:detection_result}: an {@code imageDetection} arrived; {@code detections} is 0 or 1 as in the seed.
     */
    record DetectionResult(String url, String cameraId, int detections) implements WorkerEvent {
        @Override
        public String name() {
            return "worker:detection_result";
        }
    }
}
