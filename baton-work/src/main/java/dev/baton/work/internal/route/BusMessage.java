package dev.baton.work.internal.route;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.baton.work.WorkItem;
import dev.baton.work.worker.WorkerMessage;
import java.util.List;
import java.util.Objects;

/**
 * The messages of the work cluster's pub/sub channels (seed 001's "Channel Message Specification"), JSON on the wire
 * ({@link BusCodec}). Every message names its {@code group}; a process drops messages of another group (two work
 * clusters may share a store's channels).
 *
 * <p>The JSON is data-bound ({@link BusCodec}): the type tag in {@code type}, then the fields in the order each
 * record's {@code JsonPropertyOrder} gives; {@link Required} fields must be present, optional ones are left out when
 * unset.
 *
 * <p>To a process, on {@code worker:slave:{processId}}: {@link Detection} (the seed's {@code detection}),
 * {@link Detections} (several of them in one message), {@link Ack} and {@link Response}. To the leader, on {@code worker:master:commands}: {@link Regenerate} (the seed's
 * {@code regenerate_subscriptions}) and the {@link Request}s a process sends on behalf of the facade.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = BusMessage.Detection.class, name = "detection"),
    @JsonSubTypes.Type(value = BusMessage.Detections.class, name = "detections"),
    @JsonSubTypes.Type(value = BusMessage.Ack.class, name = "ack"),
    @JsonSubTypes.Type(value = BusMessage.Response.class, name = "command_response"),
    @JsonSubTypes.Type(value = BusMessage.Regenerate.class, name = "regenerate_subscriptions"),
    @JsonSubTypes.Type(value = BusMessage.SubscribeItem.class, name = "subscribe_camera"),
    @JsonSubTypes.Type(value = BusMessage.UnsubscribeItem.class, name = "unsubscribe_camera"),
    @JsonSubTypes.Type(value = BusMessage.UnsubscribeCamera.class, name = "unsubscribe_camera_all"),
    @JsonSubTypes.Type(value = BusMessage.SetSession.class, name = "set_session_id"),
    @JsonSubTypes.Type(value = BusMessage.Listeners.class, name = "listeners"),
    @JsonSubTypes.Type(value = BusMessage.DrainWorker.class, name = "drain_worker")
})
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
    @JsonPropertyOrder({"group", "workerUrl", "data", "timestamp", "sender", "stream", "seq", "floor", "global"})
    record Detection(@Required String group, @Required String sender, @Required String stream, @Required long seq,
                     @JsonInclude(JsonInclude.Include.NON_DEFAULT) long floor, @Required boolean global,
                     @Required String workerUrl, @Required String timestamp,
                     @Required @JsonSerialize(using = BusJson.DetectionSerializer.class)
                     @JsonDeserialize(using = BusJson.DetectionDeserializer.class) WorkerMessage.ImageDetection data)
            implements BusMessage {
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

    /**
     * Several results for one process in one message, in the order the leader routed them: one publish, one read and
     * one decode instead of one per result. Each element is a complete {@link Detection} of this message's
     * {@code group} (with its own {@code type}), handled exactly as if it had come alone, so a batch changes neither
     * the numbering nor the acknowledgements. Not in the seed; a leader sends batches only when configured to
     * ({@code WorkClusterConfig.maxResultsPerMessage} above 1).
     */
    @JsonPropertyOrder({"group", "results"})
    record Detections(@Required String group, @Required List<Detection> results) implements BusMessage {
        public Detections {
            results = List.copyOf(results);
        }

        @Override
        public String type() {
            return "detections";
        }
    }

    /** A process has every result of {@code stream} up to and including {@code upTo}. */
    @JsonPropertyOrder({"group", "stream", "upTo", "from"})
    record Ack(@Required String group, @Required String stream, @Required long upTo, @Required String from)
            implements BusMessage {
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
    @JsonPropertyOrder({"group", "requestId", "ok", "retryable", "value", "error"})
    record Response(@Required String group, @Required String requestId, @Required boolean ok,
                    @Required boolean retryable, @Required long value,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String error) implements BusMessage {
        @Override
        public String type() {
            return "command_response";
        }
    }

    /** The seed's {@code regenerate_subscriptions}: the desired state changed; the leader reloads it. */
    @JsonPropertyOrder({"group", "reason", "triggeredBy", "timestamp"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Regenerate(@Required String group, String reason, String triggeredBy, String timestamp)
            implements BusMessage {
        @Override
        public String type() {
            return "regenerate_subscriptions";
        }
    }

    /**
     * A request to the leader; answered with a {@link Response} on {@code worker:slave:{replyTo}}.
     *
     * <p>A request is sent again until answered, so copies of it may still be on their way after the answer: one
     * held up in a process's store connection is published when the connection recovers, seconds or minutes late.
     * Such a copy must not undo what later requests did, so each copy names the leadership it is for
     * ({@code term}): a leader of another term refuses it (retryable), and a leader answers a request id it has
     * answered already without applying it again.
     */
    sealed interface Request extends BusMessage {
        /** Unique per request; a retried request keeps its id. */
        String requestId();

        /** The process to answer. */
        String replyTo();

        /** The term of the leader this copy is for; 0 if the sender did not say (any leader takes it). */
        long term();

        /** This request addressed to the leader of {@code term}. */
        Request withTerm(long term);
    }

    /** Store {@code item} in the desired items (the seed's {@code subscribe_camera}). */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "item"})
    record SubscribeItem(@Required String group, @Required String requestId, @Required String replyTo,
                         @Required @JsonSerialize(using = BusJson.ItemSerializer.class)
                         @JsonDeserialize(using = BusJson.ItemDeserializer.class) WorkItem item,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term) implements Request {
        /** Addressed to no term in particular. */
        public SubscribeItem(String group, String requestId, String replyTo, WorkItem item) {
            this(group, requestId, replyTo, item, 0);
        }

        @Override
        public SubscribeItem withTerm(long newTerm) {
            return new SubscribeItem(group, requestId, replyTo, item, newTerm);
        }

        @Override
        public String type() {
            return "subscribe_camera";
        }
    }

    /** Remove one item from the desired items. */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "subscriptionIdentifier"})
    record UnsubscribeItem(@Required String group, @Required String requestId, @Required String replyTo,
                           @Required String subscriptionIdentifier,
                           @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term) implements Request {
        /** Addressed to no term in particular. */
        public UnsubscribeItem(String group, String requestId, String replyTo, String subscriptionIdentifier) {
            this(group, requestId, replyTo, subscriptionIdentifier, 0);
        }

        @Override
        public UnsubscribeItem withTerm(long newTerm) {
            return new UnsubscribeItem(group, requestId, replyTo, subscriptionIdentifier, newTerm);
        }

        @Override
        public String type() {
            return "unsubscribe_camera";
        }
    }

    /** Remove every item {@code *;cameraId} from the desired items. */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "cameraId"})
    record UnsubscribeCamera(@Required String group, @Required String requestId, @Required String replyTo,
                             @Required String cameraId, @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term)
            implements Request {
        /** Addressed to no term in particular. */
        public UnsubscribeCamera(String group, String requestId, String replyTo, String cameraId) {
            this(group, requestId, replyTo, cameraId, 0);
        }

        @Override
        public UnsubscribeCamera withTerm(long newTerm) {
            return new UnsubscribeCamera(group, requestId, replyTo, cameraId, newTerm);
        }

        @Override
        public String type() {
            return "unsubscribe_camera_all";
        }
    }

    /** Send {@code setSessionId} to the worker running the item. */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "subscriptionIdentifier", "sessionId"})
    record SetSession(@Required String group, @Required String requestId, @Required String replyTo,
                      @Required String subscriptionIdentifier, Long sessionId,
                      @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term) implements Request {
        /** Addressed to no term in particular. */
        public SetSession(String group, String requestId, String replyTo, String subscriptionIdentifier,
                          Long sessionId) {
            this(group, requestId, replyTo, subscriptionIdentifier, sessionId, 0);
        }

        @Override
        public SetSession withTerm(long newTerm) {
            return new SetSession(group, requestId, replyTo, subscriptionIdentifier, sessionId, newTerm);
        }

        @Override
        public String type() {
            return "set_session_id";
        }
    }

    /** A process's listener card; the leader stores it and then answers. */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "card"})
    record Listeners(@Required String group, @Required String requestId, @Required String replyTo,
                     @Required ListenerCard card, @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term)
            implements Request {
        /** Addressed to no term in particular. */
        public Listeners(String group, String requestId, String replyTo, ListenerCard card) {
            this(group, requestId, replyTo, card, 0);
        }

        @Override
        public Listeners withTerm(long newTerm) {
            return new Listeners(group, requestId, replyTo, card, newTerm);
        }

        @Override
        public String type() {
            return "listeners";
        }
    }

    /**
     * Drain a worker ({@code drain}: its items move to other workers, make-before-break) or end its drain (Baton's
     * addition). Answered with 1 if the worker is one of the cluster's (or, ending a drain, was being drained).
     */
    @JsonPropertyOrder({"group", "requestId", "replyTo", "term", "workerUrl", "drain", "reason"})
    record DrainWorker(@Required String group, @Required String requestId, @Required String replyTo,
                       @Required String workerUrl, @Required boolean drain, String reason,
                       @JsonInclude(JsonInclude.Include.NON_DEFAULT) long term) implements Request {
        /** Addressed to no term in particular. */
        public DrainWorker(String group, String requestId, String replyTo, String workerUrl, boolean drain,
                           String reason) {
            this(group, requestId, replyTo, workerUrl, drain, reason, 0);
        }

        @Override
        public DrainWorker withTerm(long newTerm) {
            return new DrainWorker(group, requestId, replyTo, workerUrl, drain, reason, newTerm);
        }

        @Override
        public String type() {
            return "drain_worker";
        }
    }
}
