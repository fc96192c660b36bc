package dev.baton.work.internal.route;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.work.InvalidWorkItemException;
import dev.baton.work.WorkItem;
import dev.baton.work.WorkItemJson;
import dev.baton.work.worker.WorkerMessage;
import dev.baton.work.internal.worker.WorkerProtocolCodec;
import dev.baton.work.internal.worker.WorkerProtocolException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads and writes {@link BusMessage}s as JSON (UTF-8). Decoding refuses anything it cannot use with a
 * {@link BusProtocolException} naming the problem: more than {@code maxMessageBytes}, not JSON, not an object with a
 * string {@code type} and {@code group}, an unknown type, a missing or mistyped field, an invalid item. Unknown extra
 * fields are ignored, as in the worker protocol. Thread-safe.
 */
public final class BusCodec {

    /** The default cap on one message: 4 MiB (a listener card of a process with many per-item listeners). */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 4 << 20;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private final WorkerProtocolCodec workerCodec = new WorkerProtocolCodec();
    private final int maxMessageBytes;

    public BusCodec() {
        this(DEFAULT_MAX_MESSAGE_BYTES);
    }

    public BusCodec(int maxMessageBytes) {
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 1024, was " + maxMessageBytes);
        }
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The message as JSON, UTF-8. */
    public byte[] encode(BusMessage message) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("type", message.type());
        root.put("group", message.group());
        if (message instanceof BusMessage.Detection d) {
            root.put("workerUrl", d.workerUrl());
            root.set("data", workerCodec.tree(d.data()));
            root.put("timestamp", d.timestamp());
            root.put("sender", d.sender());
            root.put("stream", d.stream());
            root.put("seq", d.seq());
            if (d.floor() > 0) {
                root.put("floor", d.floor());
            }
            root.put("global", d.global());
        } else if (message instanceof BusMessage.Ack a) {
            root.put("stream", a.stream());
            root.put("upTo", a.upTo());
            root.put("from", a.from());
        } else if (message instanceof BusMessage.Response r) {
            root.put("requestId", r.requestId());
            root.put("ok", r.ok());
            root.put("retryable", r.retryable());
            root.put("value", r.value());
            if (r.error() != null) {
                root.put("error", r.error());
            }
        } else if (message instanceof BusMessage.Regenerate r) {
            putIfSet(root, "reason", r.reason());
            putIfSet(root, "triggeredBy", r.triggeredBy());
            putIfSet(root, "timestamp", r.timestamp());
        } else if (message instanceof BusMessage.Request request) {
            encodeRequest(root, request);
        } else {
            throw new IllegalStateException("no encoding for bus message " + message.getClass().getName());
        }
        try {
            return MAPPER.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a " + message.type() + " message", e);
        }
    }

    private static void encodeRequest(ObjectNode root, BusMessage.Request request) {
        root.put("requestId", request.requestId());
        root.put("replyTo", request.replyTo());
        if (request.term() > 0) {
            root.put("term", request.term());
        }
        if (request instanceof BusMessage.SubscribeItem s) {
            root.set("item", WorkItemJson.toTree(s.item()));
        } else if (request instanceof BusMessage.UnsubscribeItem u) {
            root.put("subscriptionIdentifier", u.subscriptionIdentifier());
        } else if (request instanceof BusMessage.UnsubscribeCamera u) {
            root.put("cameraId", u.cameraId());
        } else if (request instanceof BusMessage.SetSession s) {
            root.put("subscriptionIdentifier", s.subscriptionIdentifier());
            if (s.sessionId() == null) {
                root.putNull("sessionId");
            } else {
                root.put("sessionId", s.sessionId());
            }
        } else if (request instanceof BusMessage.Listeners l) {
            putCard(root.putObject("card"), l.card());
        } else {
            throw new IllegalStateException("no encoding for request " + request.getClass().getName());
        }
    }

    private static void putIfSet(ObjectNode node, String field, String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    /** A listener card as JSON (also how the leader stores it). */
    public byte[] encodeCard(ListenerCard card) {
        ObjectNode node = MAPPER.createObjectNode();
        putCard(node, card);
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a listener card", e);
        }
    }

    /** Reads a stored listener card. */
    public ListenerCard decodeCard(byte[] json) throws BusProtocolException {
        return card(new Fields("listener card", parse(json)));
    }

    private static void putCard(ObjectNode node, ListenerCard card) {
        node.put("processId", card.processId());
        node.put("incarnation", card.incarnation());
        node.put("version", card.version());
        node.put("global", card.global());
        ArrayNode items = node.putArray("items");
        card.items().stream().sorted().forEach(items::add);
    }

    /** Reads a message. */
    public BusMessage decode(byte[] json) throws BusProtocolException {
        ObjectNode root = parse(json);
        JsonNode typeNode = root.get("type");
        if (typeNode == null || !typeNode.isTextual()) {
            throw new BusProtocolException("not a message: no string \"type\"");
        }
        String type = typeNode.textValue();
        Fields f = new Fields(type, root);
        String group = f.text("group");
        return switch (type) {
            case "detection" -> new BusMessage.Detection(group, f.text("sender"), f.text("stream"), f.longValue("seq"),
                    floor(f), f.bool("global"), f.text("workerUrl"), f.text("timestamp"), detection(f));
            case "ack" -> new BusMessage.Ack(group, f.text("stream"), f.longValue("upTo"), f.text("from"));
            case "command_response" -> new BusMessage.Response(group, f.text("requestId"), f.bool("ok"),
                    f.bool("retryable"), f.longValue("value"), f.optionalText("error"));
            case "regenerate_subscriptions" -> new BusMessage.Regenerate(group, f.optionalText("reason"),
                    f.optionalText("triggeredBy"), f.optionalText("timestamp"));
            case "subscribe_camera" -> new BusMessage.SubscribeItem(group, f.text("requestId"), f.text("replyTo"),
                    item(f), term(f));
            case "unsubscribe_camera" -> new BusMessage.UnsubscribeItem(group, f.text("requestId"),
                    f.text("replyTo"), f.text("subscriptionIdentifier"), term(f));
            case "unsubscribe_camera_all" -> new BusMessage.UnsubscribeCamera(group, f.text("requestId"),
                    f.text("replyTo"), f.text("cameraId"), term(f));
            case "set_session_id" -> new BusMessage.SetSession(group, f.text("requestId"), f.text("replyTo"),
                    f.text("subscriptionIdentifier"), f.optionalLong("sessionId"), term(f));
            case "listeners" -> new BusMessage.Listeners(group, f.text("requestId"), f.text("replyTo"),
                    card(f.object("card")), term(f));
            default -> throw new BusProtocolException("unknown message type \""
                    + (type.length() > 64 ? type.substring(0, 64) + "..." : type) + "\"");
        };
    }

    /** A request's {@code term}: optional (0, not said), else at least 1. */
    private static long term(Fields f) throws BusProtocolException {
        Long term = f.optionalLong("term");
        if (term == null) {
            return 0;
        }
        if (term < 1) {
            throw new BusProtocolException(f.type + ": field term must be at least 1, was " + term);
        }
        return term;
    }

    /** A detection's {@code floor}: optional (0, not said), else at least 1 and at most its {@code seq}. */
    private static long floor(Fields f) throws BusProtocolException {
        Long floor = f.optionalLong("floor");
        if (floor == null) {
            return 0;
        }
        if (floor < 1 || floor > f.longValue("seq")) {
            throw new BusProtocolException("detection: field floor must be between 1 and seq, was " + floor);
        }
        return floor;
    }

    private WorkerMessage.ImageDetection detection(Fields f) throws BusProtocolException {
        JsonNode data = f.root.get("data");
        try {
            if (workerCodec.decodeMessage(data) instanceof WorkerMessage.ImageDetection detection) {
                return detection;
            }
        } catch (WorkerProtocolException e) {
            throw new BusProtocolException("detection: field data: " + e.getMessage(), e);
        }
        throw new BusProtocolException("detection: field data must be an imageDetection");
    }

    private static WorkItem item(Fields f) throws BusProtocolException {
        Fields item = f.object("item");
        try {
            return WorkItemJson.parse(MAPPER.writeValueAsBytes(item.root));
        } catch (InvalidWorkItemException | JsonProcessingException e) {
            throw new BusProtocolException(f.type + ": invalid item: " + e.getMessage(), e);
        }
    }

    private static ListenerCard card(Fields c) throws BusProtocolException {
        List<String> items = new ArrayList<>();
        JsonNode array = c.root.get("items");
        if (array == null || !array.isArray()) {
            throw new BusProtocolException(c.type + ": field items must be an array");
        }
        for (JsonNode item : array) {
            if (!item.isTextual()) {
                throw new BusProtocolException(c.type + ": field items must hold strings");
            }
            items.add(item.textValue());
        }
        return new ListenerCard(c.text("processId"), c.longValue("incarnation"), c.longValue("version"),
                Set.copyOf(items), c.bool("global"));
    }

    private ObjectNode parse(byte[] json) throws BusProtocolException {
        if (json.length > maxMessageBytes) {
            throw new BusProtocolException("message of " + json.length + " bytes exceeds the limit of "
                    + maxMessageBytes + " bytes");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (IOException e) {
            String message = e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
            int newline = message == null ? -1 : message.indexOf('\n');
            throw new BusProtocolException("malformed JSON: "
                    + (newline < 0 ? message : message.substring(0, newline)), e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new BusProtocolException("not a message: expected a JSON object");
        }
        return object;
    }

    /** Typed access to one object's fields, naming the message type and field in every refusal. */
    private static final class Fields {
        final String type;
        final ObjectNode root;

        Fields(String type, ObjectNode root) {
            this.type = type;
            this.root = root;
        }

        String text(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            if (v == null || v.isNull()) {
                throw new BusProtocolException(type + ": field " + name + " is missing");
            }
            if (!v.isTextual()) {
                throw new BusProtocolException(type + ": field " + name + " must be a string");
            }
            return v.textValue();
        }

        String optionalText(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            return v == null || v.isNull() ? null : text(name);
        }

        long longValue(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            if (v == null || v.isNull()) {
                throw new BusProtocolException(type + ": field " + name + " is missing");
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw new BusProtocolException(type + ": field " + name + " must be a whole number");
            }
            return v.longValue();
        }

        Long optionalLong(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            return v == null || v.isNull() ? null : longValue(name);
        }

        boolean bool(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            if (v == null || !v.isBoolean()) {
                throw new BusProtocolException(type + ": field " + name
                        + (v == null ? " is missing" : " must be a boolean"));
            }
            return v.booleanValue();
        }

        Fields object(String name) throws BusProtocolException {
            JsonNode v = root.get(name);
            if (!(v instanceof ObjectNode o)) {
                throw new BusProtocolException(type + ": field " + name
                        + (v == null ? " is missing" : " must be an object"));
            }
            return new Fields(type, o);
        }
    }
}
