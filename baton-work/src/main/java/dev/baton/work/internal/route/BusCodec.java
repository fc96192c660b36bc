package dev.baton.work.internal.route;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads and writes {@link BusMessage}s as JSON (UTF-8), by data binding over the annotated records. Decoding refuses
 * anything it cannot use with a {@link BusProtocolException} naming the problem: more than {@code maxMessageBytes},
 * not JSON, not an object with a string {@code type} and {@code group}, an unknown type, a missing or mistyped field,
 * a term or floor out of range, an invalid item. Unknown extra fields are ignored, as in the worker protocol.
 * Thread-safe.
 */
public final class BusCodec {

    /** The default cap on one message: 4 MiB (a listener card of a process with many per-item listeners). */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 4 << 20;

    private static final ObjectReader MESSAGE_READER = BusJson.MAPPER.readerFor(BusMessage.class);
    private static final ObjectWriter MESSAGE_WRITER = BusJson.MAPPER.writerFor(BusMessage.class);
    private static final ObjectReader CARD_READER = BusJson.MAPPER.readerFor(ListenerCard.class);
    private static final ObjectWriter CARD_WRITER = BusJson.MAPPER.writerFor(ListenerCard.class);
    private static final Map<Class<?>, String> TYPES = types();
    private static final Set<String> REQUEST_TYPES = TYPES.entrySet().stream()
            .filter(e -> BusMessage.Request.class.isAssignableFrom(e.getKey())).map(Map.Entry::getValue)
            .collect(Collectors.toUnmodifiableSet());

    private static final byte[] BATCH_HEAD = "{\"type\":\"detections\",\"group\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BATCH_RESULTS = ",\"results\":[".getBytes(StandardCharsets.UTF_8);

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

    /** The type tags of {@link BusMessage}'s records, from its {@code JsonSubTypes}. */
    private static Map<Class<?>, String> types() {
        Map<Class<?>, String> types = new HashMap<>();
        for (JsonSubTypes.Type t : BusMessage.class.getAnnotation(JsonSubTypes.class).value()) {
            types.put(t.value(), t.name());
        }
        return Map.copyOf(types);
    }

    /** The message as JSON, UTF-8. */
    public byte[] encode(BusMessage message) {
        String tag = TYPES.get(message.getClass());
        if (tag == null || !tag.equals(message.type())) {
            throw new IllegalStateException("no encoding for bus message " + message.getClass().getName());
        }
        try {
            return MESSAGE_WRITER.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a " + message.type() + " message", e);
        }
    }

    /**
     * A {@link BusMessage.Detections} of {@code group} from results already encoded with {@link #encode}, in order:
     * the batch is written around their bytes, so no result is encoded twice. One result is written as it is.
     */
    public byte[] encodeDetections(String group, List<byte[]> detections) {
        if (detections.isEmpty()) {
            throw new IllegalArgumentException("a batch of no results");
        }
        if (detections.size() == 1) {
            return detections.get(0);
        }
        byte[] groupJson;
        try {
            groupJson = BusJson.MAPPER.writeValueAsBytes(group);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a group name", e);
        }
        int size = BATCH_HEAD.length + groupJson.length + BATCH_RESULTS.length + 2;
        for (byte[] d : detections) {
            size += d.length + 1;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(size);
        out.writeBytes(BATCH_HEAD);
        out.writeBytes(groupJson);
        out.writeBytes(BATCH_RESULTS);
        for (int i = 0; i < detections.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.writeBytes(detections.get(i));
        }
        out.write(']');
        out.write('}');
        return out.toByteArray();
    }

    /** A listener card as JSON (also how the leader stores it). */
    public byte[] encodeCard(ListenerCard card) {
        try {
            return CARD_WRITER.writeValueAsBytes(card);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a listener card", e);
        }
    }

    /** Reads a stored listener card. */
    public ListenerCard decodeCard(byte[] json) throws BusProtocolException {
        ObjectNode root = parse(json);
        try {
            return CARD_READER.readValue(root);
        } catch (IOException | RuntimeException e) {
            throw BusJson.problem("listener card", e);
        }
    }

    /** Reads a message. */
    public BusMessage decode(byte[] json) throws BusProtocolException {
        ObjectNode root = parse(json);
        // The envelope first: every message is an object with a string type and a string group.
        JsonNode typeNode = root.get("type");
        if (typeNode == null || !typeNode.isTextual()) {
            throw new BusProtocolException("not a message: no string \"type\"");
        }
        String type = typeNode.textValue();
        JsonNode group = root.get("group");
        if (group == null || group.isNull()) {
            throw new BusProtocolException(type + ": field group is missing");
        }
        if (!group.isTextual()) {
            throw new BusProtocolException(type + ": field group must be a string");
        }
        if (!TYPES.containsValue(type)) {
            throw new BusProtocolException("unknown message type \""
                    + (type.length() > 64 ? type.substring(0, 64) + "..." : type) + "\"");
        }
        checkRanges(type, root);
        try {
            return MESSAGE_READER.readValue(root);
        } catch (IOException | RuntimeException e) {
            throw BusJson.problem(type, e);
        }
    }

    /**
     * The rules binding cannot say, checked before it (as the fields come first in the message's own terms): a
     * request's {@code term}, when given, is at least 1 (0 means "not said" and is written by leaving the field out);
     * a detection's {@code floor}, when given, is between 1 and its {@code seq}. A field of the wrong type is left
     * for binding to refuse.
     */
    private static void checkRanges(String type, ObjectNode root) throws BusProtocolException {
        if (type.equals("detections")) {
            checkBatch(root);
            return;
        }
        Long term = wholeNumber(root.get("term"));
        if (term != null && term < 1 && REQUEST_TYPES.contains(type)) {
            throw new BusProtocolException(type + ": field term must be at least 1, was " + term);
        }
        Long floor = wholeNumber(root.get("floor"));
        Long seq = wholeNumber(root.get("seq"));
        if (type.equals("detection") && floor != null && seq != null && (floor < 1 || floor > seq)) {
            throw new BusProtocolException("detection: field floor must be between 1 and seq, was " + floor);
        }
    }

    /**
     * A batch holds at least one result, each a {@code detection} of the batch's own group whose floor is in range:
     * an element that could not have come alone does not come in a batch either.
     */
    private static void checkBatch(ObjectNode root) throws BusProtocolException {
        JsonNode results = root.get("results");
        if (results == null || !results.isArray()) {
            return; // binding names it: missing, or not an array
        }
        if (results.isEmpty()) {
            throw new BusProtocolException("detections: field results must not be empty");
        }
        String group = root.get("group").textValue();
        for (int i = 0; i < results.size(); i++) {
            JsonNode element = results.get(i);
            if (!(element instanceof ObjectNode object)) {
                throw new BusProtocolException("detections: results[" + i + "] must be an object");
            }
            JsonNode type = object.get("type");
            if (type == null || !"detection".equals(type.textValue())) {
                throw new BusProtocolException("detections: results[" + i + "] must be a detection");
            }
            JsonNode elementGroup = object.get("group");
            if (elementGroup != null && elementGroup.isTextual() && !group.equals(elementGroup.textValue())) {
                throw new BusProtocolException("detections: results[" + i + "] is of group \""
                        + elementGroup.textValue() + "\", not the batch's");
            }
            try {
                checkRanges("detection", object);
            } catch (BusProtocolException e) {
                throw new BusProtocolException("detections: results[" + i + "]: " + e.getMessage());
            }
        }
    }

    private static Long wholeNumber(JsonNode node) {
        return node != null && node.isIntegralNumber() && node.canConvertToLong() ? node.longValue() : null;
    }

    private ObjectNode parse(byte[] json) throws BusProtocolException {
        if (json.length > maxMessageBytes) {
            throw new BusProtocolException("message of " + json.length + " bytes exceeds the limit of "
                    + maxMessageBytes + " bytes");
        }
        JsonNode node;
        try {
            node = BusJson.MAPPER.readTree(json);
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
}
