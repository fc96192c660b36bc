package dev.baton.work.internal.worker;

import java.util.Objects;

/**
 * A message from the backend (Baton's leader) to a worker: the seed's {@code DetectorWorkerCommand}. Each record
 * carries the fields of the seed's WebSocket message table under the same names; {@link WorkerProtocolCodec} writes
 * them as {@code {"type": ..., "payload": {...}}} exactly as the seed's Python workers expect, plus Baton's optional
 * top-level {@code leaderTerm} when the sender leads a term ({@link FencedCommand}).
 */
public sealed interface WorkerCommand {

    /** The seed's {@code type} string of this command, e.g. {@code "subscribe"}. */
    String type();

    /**
     * {@code subscribe}: run a camera subscription. Optional fields are {@code null} when absent and are then left out
     * of the JSON. The worker confirms in its next {@code stateReport}.
     *
     * @param subscriptionIdentifier the seed's {@code displayId;cameraId}
     * @param snapshotInterval       snapshot interval in milliseconds, as in the seed
     */
    record Subscribe(String subscriptionIdentifier, String rtspUrl, String snapshotUrl, Long snapshotInterval,
                     String modelUrl, String modelName, long modelId,
                     Integer cropX1, Integer cropY1, Integer cropX2, Integer cropY2) implements WorkerCommand {
        public Subscribe {
            Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
            Objects.requireNonNull(rtspUrl, "rtspUrl");
            Objects.requireNonNull(modelUrl, "modelUrl");
            Objects.requireNonNull(modelName, "modelName");
        }

        /** A subscription with only the seed's required fields. */
        public static Subscribe of(String subscriptionIdentifier, String rtspUrl, String modelUrl, String modelName,
                                   long modelId) {
            return new Subscribe(subscriptionIdentifier, rtspUrl, null, null, modelUrl, modelName, modelId,
                    null, null, null, null);
        }

        @Override
        public String type() {
            return "subscribe";
        }
    }

    /** {@code unsubscribe}: stop a camera subscription; confirmed by the next {@code stateReport}. */
    record Unsubscribe(String subscriptionIdentifier) implements WorkerCommand {
        public Unsubscribe {
            Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
        }

        @Override
        public String type() {
            return "unsubscribe";
        }
    }

    /** {@code requestState}: asks for a {@code stateReport} now. Has no payload. */
    record RequestState() implements WorkerCommand {
        @Override
        public String type() {
            return "requestState";
        }
    }

    /**
     * {@code setSessionId}: associates a session with a display. A {@code null} {@code sessionId} clears it and is
     * written as JSON {@code null}, as the seed's {@code setSessionId(…, sessionId: number | null)} does.
     */
    record SetSessionId(String displayIdentifier, Long sessionId) implements WorkerCommand {
        public SetSessionId {
            Objects.requireNonNull(displayIdentifier, "displayIdentifier");
        }

        @Override
        public String type() {
            return "setSessionId";
        }
    }

    /** {@code patchSessionResult}: the answer to a worker's {@code patchSession}; {@code message} is optional. */
    record PatchSessionResult(long sessionId, boolean success, String message) implements WorkerCommand {
        @Override
        public String type() {
            return "patchSessionResult";
        }
    }
}
