package dev.baton.work.route;

import dev.baton.work.WorkItem;
import dev.baton.work.worker.WorkerMessage;
import java.util.Objects;

/**
 * The messages of the work cluster's pub/sub channels (seed 001's "Channel Message Specification"), JSON on the wire
 * ({@link BusCodec}). Every message names its {@code group}; a process drops messages of another group (two work
 * clusters may share a store's channels).
 *
 * <p>To a process, on {@code worker:slave:{processId}}: {@link Detection} (the seed's {@code detection}),
 * {@link Ack} and {@link Response}. To the leader, on {@code worker:master:commands}: {@link Regenerate} (the seed's
 * {@code regenerate_subscriptions}) and the {@link Request}s a process sends on behalf of the facade.
 */
public sealed interface BusMessage {

    /** The seed's {@code type} string. */
    String type();

    /** The work cluster's group (the election's group). */
    String group();

    /**
     * A worker's result routed to a process: the seed's {@code {type:'detection', workerUrl, data, timestamp}} plus
     * the delivery fields. Results from one leader to one process form a stream ({@code stream}, {@code seq} from 1
     * up) that the process acknowledges, so that a lost message is sent again.
     *
     * @param sender the leader process that routed it, which the receiver acknowledges to
     * @param floor  the stream's oldest result the sender still keeps for re-sending when it sent this one (0: not
     *               said): every result below it is settled, acknowledged or given up, and will not come again,
     *               so the receiver acknowledges past it rather than wait for it
     * @param global whether the receiving process is the one whose global listeners get this result
     */
    record Detection(String group, String sender, String stream, long seq, long floor, boolean global,
                     String workerUrl, String timestamp, WorkerMessage.ImageDetection data) implements BusMessage {
        public Detection {
            Objects.requireNonNull(sender, "sender");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(workerUrl, "workerUrl");
            Objects.requireNonNull(timestamp, "timestamp");
            Objects.requireNonNull(data, "data");
        }

        /** A result without a floor (as older senders wrote it). */
        public Detection(String group, String sender, String stream, long seq, boolean global, String workerUrl,
                         String timestamp, WorkerMessage.ImageDetection data) {
            this(group, sender, stream, seq, 0, global, workerUrl, timestamp, data);
        }

        @Override
        public String type() {
            return "detection";
        }
    }

    /** A process has every result of {@code stream} up to and including {@code upTo}. */
    record Ack(String group, String stream, long upTo, String from) implements BusMessage {
        @Override
        public String type() {
            return "ack";
        }
    }

    /**
     * The leader's answer to a {@link Request} (the seed's {@code command_response}).
     *
     * @param retryable when not {@code ok}: whether asking again (perhaps another leader) may succeed
     * @param value     the request's result: 1/0 for yes/no answers, a count for bulk ones
     */
    record Response(String group, String requestId, boolean ok, boolean retryable, long value, String error)
            implements BusMessage {
        @Override
        public String type() {
            return "command_response";
        }
    }

    /** The seed's {@code regenerate_subscriptions}: the desired state changed; the leader reloads it. */
    record Regenerate(String group, String reason, String triggeredBy, String timestamp) implements BusMessage {
        @Override
        public String type() {
            return "regenerate_subscriptions";
        }
    }

    /** A request to the leader; answered with a {@link Response} on {@code worker:slave:{replyTo}}. */
    sealed interface Request extends BusMessage {
        /** Unique per request; a retried request keeps its id. */
        String requestId();

        /** The process to answer. */
        String replyTo();
    }

    /** Store {@code item} in the desired items (the seed's {@code subscribe_camera}). */
    record SubscribeItem(String group, String requestId, String replyTo, WorkItem item) implements Request {
        @Override
        public String type() {
            return "subscribe_camera";
        }
    }

    /** Remove one item from the desired items. */
    record UnsubscribeItem(String group, String requestId, String replyTo, String subscriptionIdentifier)
            implements Request {
        @Override
        public String type() {
            return "unsubscribe_camera";
        }
    }

    /** Remove every item {@code *;cameraId} from the desired items. */
    record UnsubscribeCamera(String group, String requestId, String replyTo, String cameraId) implements Request {
        @Override
        public String type() {
            return "unsubscribe_camera_all";
        }
    }

    /** Send {@code setSessionId} to the worker running the item. */
    record SetSession(String group, String requestId, String replyTo, String subscriptionIdentifier, Long sessionId)
            implements Request {
        @Override
        public String type() {
            return "set_session_id";
        }
    }

    /** A process's listener card; the leader stores it and then answers. */
    record Listeners(String group, String requestId, String replyTo, ListenerCard card) implements Request {
        @Override
        public String type() {
            return "listeners";
        }
    }
}
