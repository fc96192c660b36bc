package dev.baton.work.worker;

import java.util.List;
import java.util.Objects;

/**
 * A message from a worker to the backend, as in the seed's WebSocket message table: {@code stateReport},
 * {@code imageDetection} and {@code patchSession}; and Baton's optional {@code draining}, by which a worker announces
 * that it is about to stop. Optional fields are {@code null} when the worker left them out.
 */
public sealed interface WorkerMessage {

    /** The seed's {@code type} string of this message, e.g. {@code "stateReport"}. */
    String type();

    /**
     * {@code stateReport}: the worker's health and the subscriptions it runs, sent every 2 s and in answer to
     * {@code requestState}, {@code subscribe} and {@code unsubscribe}.
     *
     * @param cpuUsage          CPU utilisation as the worker reports it (the seed's DRS score uses it as is)
     * @param memoryUsage       memory utilisation as the worker reports it
     * @param gpuUsage          optional
     * @param gpuMemoryUsage    optional
     * @param cameraConnections the subscriptions the worker holds now: the worker's truth, which a reconciler diffs
     *                          with what it asked for
     */
    record StateReport(double cpuUsage, double memoryUsage, Double gpuUsage, Double gpuMemoryUsage,
                       List<CameraConnection> cameraConnections) implements WorkerMessage {
        public StateReport {
            cameraConnections = List.copyOf(cameraConnections);
        }

        @Override
        public String type() {
            return "stateReport";
        }
    }

    /**
     * One entry of {@code cameraConnections}; {@code cropX}, {@code cropY} and {@code cost} are optional.
     *
     * @param cost Baton's addition: what the item costs to run on this worker now, in the unit of
     *             {@link dev.baton.work.WorkItem#weight()} (CPU millicores, say), at least 0; the load-aware planner
     *             balances by it instead of the item's weight. {@code null} when the worker does not say.
     */
    record CameraConnection(String subscriptionIdentifier, long modelId, String modelName, boolean online,
                            Integer cropX, Integer cropY, Double cost) {
        public CameraConnection {
            Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
            Objects.requireNonNull(modelName, "modelName");
            if (cost != null && (!Double.isFinite(cost) || cost < 0)) {
                throw new IllegalArgumentException("cost of '" + subscriptionIdentifier
                        + "' must be a finite number of at least 0, got " + cost);
            }
        }

        /** An entry without a cost, as the original design's workers send it. */
        public CameraConnection(String subscriptionIdentifier, long modelId, String modelName, boolean online,
                                Integer cropX, Integer cropY) {
            this(subscriptionIdentifier, modelId, modelName, online, cropX, cropY, null);
        }
    }

    /**
     * {@code imageDetection}: a detection result for one subscription. The seed types {@code timestamp} as a
     * {@code Date}, which a worker serialises as an ISO-8601 string or as epoch milliseconds; it is kept as the text
     * the worker sent.
     */
    record ImageDetection(String subscriptionIdentifier, String timestamp, Detection detection, long modelId,
                          String modelName) implements WorkerMessage {
        public ImageDetection {
            Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
            Objects.requireNonNull(timestamp, "timestamp");
            Objects.requireNonNull(modelName, "modelName");
            detection = detection == null ? Detection.NONE : detection;
        }

        @Override
        public String type() {
            return "imageDetection";
        }
    }

    /**
     * {@code data.detection} of an {@code imageDetection}: every field is optional. An empty or missing detection
     * means nothing was detected (the seed's {@code worker:detection_result} counts 0 or 1 detections).
     */
    record Detection(String carModel, String carBrand, Integer carYear, String bodyType, String licensePlateText,
                     String licensePlateType) {
        /** Nothing detected. */
        public static final Detection NONE = new Detection(null, null, null, null, null, null);

        /** True when no field is set. */
        public boolean isEmpty() {
            return equals(NONE);
        }
    }

    /**
     * {@code patchSession}: session data from the worker's processing; the backend answers with
     * {@code patchSessionResult}. {@code data} is the seed's {@code any}, as plain Java values: {@code Map},
     * {@code List}, {@code String}, {@code Number}, {@code Boolean} or {@code null}.
     */
    record PatchSession(long sessionId, Object data) implements WorkerMessage {
        @Override
        public String type() {
            return "patchSession";
        }
    }

    /**
     * {@code draining} (Baton's, optional; the seed's workers never send it): the worker is about to stop, so the
     * leader moves its items to other workers, each started and confirmed there before it is stopped here, and the
     * worker waits until it runs nothing before it exits. A worker still draining sends it again on every new
     * connection: the leader forgets an announced drain when the connection it came on ends.
     *
     * @param reason why, for the logs (optional)
     */
    record Draining(String reason) implements WorkerMessage {
        @Override
        public String type() {
            return "draining";
        }
    }
}
