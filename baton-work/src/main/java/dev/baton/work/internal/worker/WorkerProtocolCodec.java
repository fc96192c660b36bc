package dev.baton.work.internal.worker;

import dev.baton.work.worker.WorkerConnectionConfig;
import dev.baton.work.worker.WorkerMessage;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.work.internal.worker.WorkerProtocolException.Problem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the seed's worker WebSocket messages as JSON text, with the seed's field names.
 *
 * <p>Both directions are here: {@link #encode(WorkerCommand, long)} and {@link #decodeMessage(String)} are what the
 * backend uses; {@link #encode(WorkerMessage)} and {@link #decodeFencedCommand(String)} are the worker's side, for
 * tests and for a worker written in Java.
 *
 * <p>Baton adds one optional top-level field to every command, {@code leaderTerm}: the fencing term of the leader
 * that sent it, so a worker can refuse a deposed leader's commands ({@link LeaderTermFence}). It sits beside
 * {@code type} rather than in {@code payload} because a worker of the original protocol may hand the payload whole to
 * a constructor that takes only the fields it knows, while it reads nothing else at the top level.
 *
 * <p>Decoding is strict about what the seed requires and lenient about the rest: a known message with fields the seed
 * does not list is accepted and the extra fields are ignored, because the seed's types are TypeScript interfaces
 * (structural: a Python worker may add fields, such as more detection attributes, without breaking the backend). A
 * message larger than {@code maxMessageBytes} (UTF-8), one that is not JSON, not an object with a string
 * {@code type}, of an unknown type, or missing a required field or with a field of the wrong JSON type is refused
 * with a {@link WorkerProtocolException} naming the problem. Thread-safe.
 *
 * <p>Why a tree mapping here when the bus ({@code BusCodec}) is data-bound: this is the seed's protocol, spoken by
 * workers we do not write, and its shape does not match our records. A result's {@code modelId} and
 * {@code modelName} sit under {@code data} beside {@code detection} while {@link WorkerMessage.ImageDetection} keeps
 * them flat; commands wrap their fields in {@code payload}; a {@code timestamp} may be a string or epoch millis and an
 * integer may come as {@code 7.0} (JavaScript and some Python serialisers), both kept as the worker sent them;
 * {@code patchSession}'s {@code data} is any JSON value; and every refusal is classified
 * ({@link WorkerProtocolException.Problem}) with the field's path, for the per-worker bad-message budget. Binding
 * would need a mirror record per message plus custom deserializers for most fields, so this class stays the one
 * bounded place that walks JSON trees by hand.
 */
public final class WorkerProtocolCodec {

    /** The default cap on one message: 1 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = WorkerConnectionConfig.DEFAULT_MAX_MESSAGE_BYTES;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Baton's top-level field on every command: the sending leader's fencing term. */
    static final String LEADER_TERM = "leaderTerm";

    private final ObjectMapper mapper;
    private final int maxMessageBytes;

    /** A codec with the default 1 MiB cap. */
    public WorkerProtocolCodec() {
        this(DEFAULT_MAX_MESSAGE_BYTES);
    }

    /** A codec refusing messages of more than {@code maxMessageBytes} UTF-8 bytes. */
    public WorkerProtocolCodec(int maxMessageBytes) {
        if (maxMessageBytes < 64) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 64, was " + maxMessageBytes);
        }
        this.maxMessageBytes = maxMessageBytes;
        this.mapper = new ObjectMapper();
        // The size cap is checked before parsing; Jackson's own string limit must not refuse first with another
        // message.
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxStringLength(Math.max(maxMessageBytes, StreamReadConstraints.DEFAULT_MAX_STRING_LEN)).build());
    }

    /** The cap on one message, in UTF-8 bytes. */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    // ---------------------------------------------------------------- backend -> worker

    /**
     * The JSON text of a command without a term, e.g.
     * {@code {"type":"unsubscribe","payload":{"subscriptionIdentifier":"1;2"}}}: the original protocol exactly.
     */
    public String encode(WorkerCommand command) {
        return encode(command, FencedCommand.NO_TERM);
    }

    /**
     * The JSON text of a command sent by the leader of {@code leaderTerm}, e.g.
     * {@code {"type":"unsubscribe","leaderTerm":7,"payload":{"subscriptionIdentifier":"1;2"}}};
     * {@link FencedCommand#NO_TERM} leaves the field out.
     */
    public String encode(WorkerCommand command, long leaderTerm) {
        if (leaderTerm < FencedCommand.NO_TERM) {
            throw new IllegalArgumentException("leaderTerm must be at least 0, was " + leaderTerm);
        }
        ObjectNode root = NODES.objectNode();
        root.put("type", command.type());
        if (leaderTerm != FencedCommand.NO_TERM) {
            root.put(LEADER_TERM, leaderTerm);
        }
        if (command instanceof WorkerCommand.Subscribe s) {
            ObjectNode p = root.putObject("payload");
            p.put("subscriptionIdentifier", s.subscriptionIdentifier());
            p.put("rtspUrl", s.rtspUrl());
            putIfSet(p, "snapshotUrl", s.snapshotUrl());
            if (s.snapshotInterval() != null) {
                p.put("snapshotInterval", s.snapshotInterval());
            }
            p.put("modelUrl", s.modelUrl());
            p.put("modelName", s.modelName());
            p.put("modelId", s.modelId());
            putIfSet(p, "cropX1", s.cropX1());
            putIfSet(p, "cropY1", s.cropY1());
            putIfSet(p, "cropX2", s.cropX2());
            putIfSet(p, "cropY2", s.cropY2());
        } else if (command instanceof WorkerCommand.Unsubscribe u) {
            root.putObject("payload").put("subscriptionIdentifier", u.subscriptionIdentifier());
        } else if (command instanceof WorkerCommand.SetSessionId s) {
            ObjectNode p = root.putObject("payload");
            p.put("displayIdentifier", s.displayIdentifier());
            p.put("sessionId", s.sessionId());
        } else if (command instanceof WorkerCommand.PatchSessionResult r) {
            ObjectNode p = root.putObject("payload");
            p.put("sessionId", r.sessionId());
            p.put("success", r.success());
            putIfSet(p, "message", r.message());
        } else if (!(command instanceof WorkerCommand.RequestState)) { // requestState has no payload
            throw new IllegalStateException("no encoding for worker command " + command.getClass().getName());
        }
        return root.toString();
    }

    /** Reads a command, as a worker does, without its term (see {@link #decodeFencedCommand(String)}). */
    public WorkerCommand decodeCommand(String json) throws WorkerProtocolException {
        return decodeFencedCommand(json).command();
    }

    /**
     * Reads a command and the term of the leader that sent it ({@link FencedCommand#NO_TERM} when it has no
     * {@code leaderTerm}, or a JSON {@code null} one). A {@code leaderTerm} that is not a positive integer is refused.
     */
    public FencedCommand decodeFencedCommand(String json) throws WorkerProtocolException {
        ObjectNode root = parse(json);
        String type = root.get("type").textValue();
        WorkerCommand command = command(root, type);
        Long term = new Fields(type, "", root).optionalLong(LEADER_TERM);
        if (term != null && term < 1) {
            throw new WorkerProtocolException(Problem.WRONG_FIELD_TYPE,
                    type + ": field " + LEADER_TERM + " must be at least 1, was " + term);
        }
        return new FencedCommand(command, term == null ? FencedCommand.NO_TERM : term);
    }

    private WorkerCommand command(ObjectNode root, String type) throws WorkerProtocolException {
        switch (type) {
            case "subscribe" -> {
                Fields p = payload(root, type);
                return new WorkerCommand.Subscribe(p.text("subscriptionIdentifier"), p.text("rtspUrl"),
                        p.optionalText("snapshotUrl"), p.optionalLong("snapshotInterval"), p.text("modelUrl"),
                        p.text("modelName"), p.longValue("modelId"), p.optionalInt("cropX1"),
                        p.optionalInt("cropY1"), p.optionalInt("cropX2"), p.optionalInt("cropY2"));
            }
            case "unsubscribe" -> {
                return new WorkerCommand.Unsubscribe(payload(root, type).text("subscriptionIdentifier"));
            }
            case "requestState" -> {
                return new WorkerCommand.RequestState();
            }
            case "setSessionId" -> {
                Fields p = payload(root, type);
                return new WorkerCommand.SetSessionId(p.text("displayIdentifier"), p.optionalLong("sessionId"));
            }
            case "patchSessionResult" -> {
                Fields p = payload(root, type);
                return new WorkerCommand.PatchSessionResult(p.longValue("sessionId"), p.bool("success"),
                        p.optionalText("message"));
            }
            default -> throw unknownType(type, "subscribe, unsubscribe, requestState, setSessionId, "
                    + "patchSessionResult");
        }
    }

    // ---------------------------------------------------------------- worker -> backend

    /** Reads a message from a worker. */
    public WorkerMessage decodeMessage(String json) throws WorkerProtocolException {
        return decodeTree(parse(json));
    }

    /**
     * Reads a worker's message already parsed as JSON, e.g. one embedded in a larger document (the work cluster's
     * routed results). Size is not checked here: the enclosing document was.
     */
    public WorkerMessage decodeMessage(JsonNode node) throws WorkerProtocolException {
        return decodeTree(checkMessage(node));
    }

    private WorkerMessage decodeTree(ObjectNode root) throws WorkerProtocolException {
        String type = root.get("type").textValue();
        Fields f = new Fields(type, "", root);
        switch (type) {
            case "stateReport" -> {
                List<WorkerMessage.CameraConnection> connections = new ArrayList<>();
                ArrayNode array = f.array("cameraConnections");
                for (int i = 0; i < array.size(); i++) {
                    Fields c = f.element("cameraConnections", i, array.get(i));
                    connections.add(new WorkerMessage.CameraConnection(c.text("subscriptionIdentifier"),
                            c.longValue("modelId"), c.text("modelName"), c.bool("online"), c.optionalInt("cropX"),
                            c.optionalInt("cropY"), c.optionalCost("cost")));
                }
                return new WorkerMessage.StateReport(f.number("cpuUsage"), f.number("memoryUsage"),
                        f.optionalNumber("gpuUsage"), f.optionalNumber("gpuMemoryUsage"), connections);
            }
            case "imageDetection" -> {
                Fields data = f.object("data");
                Fields d = data.optionalObject("detection");
                WorkerMessage.Detection detection = d == null ? WorkerMessage.Detection.NONE
                        : new WorkerMessage.Detection(d.optionalText("carModel"), d.optionalText("carBrand"),
                        d.optionalInt("carYear"), d.optionalText("bodyType"), d.optionalText("licensePlateText"),
                        d.optionalText("licensePlateType"));
                return new WorkerMessage.ImageDetection(f.text("subscriptionIdentifier"), f.timestamp("timestamp"),
                        detection, data.longValue("modelId"), data.text("modelName"));
            }
            case "patchSession" -> {
                JsonNode data = root.get("data");
                Object value = data == null || data.isNull() ? null : mapper.convertValue(data, Object.class);
                return new WorkerMessage.PatchSession(f.longValue("sessionId"), value);
            }
            case "draining" -> {
                return new WorkerMessage.Draining(f.optionalText("reason"));
            }
            default -> throw unknownType(type, "stateReport, imageDetection, patchSession, draining");
        }
    }

    /** The JSON text of a worker's message, as a worker sends it. */
    public String encode(WorkerMessage message) {
        return tree(message).toString();
    }

    /** A worker's message as a JSON tree, as a worker sends it; to embed in a larger document. */
    public ObjectNode tree(WorkerMessage message) {
        ObjectNode root = NODES.objectNode();
        root.put("type", message.type());
        if (message instanceof WorkerMessage.StateReport r) {
            root.put("cpuUsage", r.cpuUsage());
            root.put("memoryUsage", r.memoryUsage());
            if (r.gpuUsage() != null) {
                root.put("gpuUsage", r.gpuUsage());
            }
            if (r.gpuMemoryUsage() != null) {
                root.put("gpuMemoryUsage", r.gpuMemoryUsage());
            }
            ArrayNode array = root.putArray("cameraConnections");
            for (WorkerMessage.CameraConnection c : r.cameraConnections()) {
                ObjectNode o = array.addObject();
                o.put("subscriptionIdentifier", c.subscriptionIdentifier());
                o.put("modelId", c.modelId());
                o.put("modelName", c.modelName());
                o.put("online", c.online());
                putIfSet(o, "cropX", c.cropX());
                putIfSet(o, "cropY", c.cropY());
                if (c.cost() != null) {
                    o.put("cost", c.cost());
                }
            }
        } else if (message instanceof WorkerMessage.ImageDetection d) {
            root.put("subscriptionIdentifier", d.subscriptionIdentifier());
            root.put("timestamp", d.timestamp());
            ObjectNode data = root.putObject("data");
            ObjectNode det = data.putObject("detection");
            WorkerMessage.Detection x = d.detection();
            putIfSet(det, "carModel", x.carModel());
            putIfSet(det, "carBrand", x.carBrand());
            putIfSet(det, "carYear", x.carYear());
            putIfSet(det, "bodyType", x.bodyType());
            putIfSet(det, "licensePlateText", x.licensePlateText());
            putIfSet(det, "licensePlateType", x.licensePlateType());
            data.put("modelId", d.modelId());
            data.put("modelName", d.modelName());
        } else if (message instanceof WorkerMessage.PatchSession p) {
            root.put("sessionId", p.sessionId());
            root.set("data", mapper.valueToTree(p.data()));
        } else if (message instanceof WorkerMessage.Draining d) {
            putIfSet(root, "reason", d.reason());
        } else {
            throw new IllegalStateException("no encoding for worker message " + message.getClass().getName());
        }
        return root;
    }

    // ---------------------------------------------------------------- parsing

    /**
     * The UTF-8 length of {@code text}, counted without encoding it; a worker's frames arrive as Java strings.
     */
    static long utf8Length(CharSequence text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** The refusal for a message of {@code bytes} UTF-8 bytes. */
    WorkerProtocolException oversized(long bytes) {
        return new WorkerProtocolException(Problem.OVERSIZED, "message of " + bytes
                + " bytes exceeds the limit of " + maxMessageBytes + " bytes");
    }

    private ObjectNode parse(String json) throws WorkerProtocolException {
        // Characters never outnumber UTF-8 bytes: a string longer than the cap in characters is over it in bytes.
        if (json.length() > maxMessageBytes) {
            throw oversized(utf8Length(json));
        }
        long bytes = utf8Length(json);
        if (bytes > maxMessageBytes) {
            throw oversized(bytes);
        }
        JsonNode node;
        try {
            node = mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new WorkerProtocolException(Problem.MALFORMED_JSON, "malformed JSON: " + e.getOriginalMessage()
                    + locationOf(e), e);
        }
        if (node == null || node.isMissingNode()) {
            throw new WorkerProtocolException(Problem.MALFORMED_JSON, "malformed JSON: empty message");
        }
        return checkMessage(node);
    }

    private static ObjectNode checkMessage(JsonNode node) throws WorkerProtocolException {
        if (node == null || node.isMissingNode()) {
            throw new WorkerProtocolException(Problem.NOT_A_MESSAGE, "not a message: nothing there");
        }
        if (!(node instanceof ObjectNode object)) {
            throw new WorkerProtocolException(Problem.NOT_A_MESSAGE,
                    "not a message: expected a JSON object with a \"type\", got " + kind(node));
        }
        JsonNode type = object.get("type");
        if (type == null || !type.isTextual()) {
            throw new WorkerProtocolException(Problem.NOT_A_MESSAGE, "not a message: "
                    + (type == null ? "no \"type\" field" : "\"type\" is " + kind(type) + ", not a string"));
        }
        return object;
    }

    private static String locationOf(JsonProcessingException e) {
        return e.getLocation() == null ? ""
                : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
    }

    private static WorkerProtocolException unknownType(String type, String known) {
        String shown = type.length() > 64 ? type.substring(0, 64) + "..." : type;
        return new WorkerProtocolException(Problem.UNKNOWN_TYPE,
                "unknown message type \"" + shown + "\" (known: " + known + ")");
    }

    private static Fields payload(ObjectNode root, String type) throws WorkerProtocolException {
        return new Fields(type, "", root).object("payload");
    }

    static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /**
     * Writes {@code d} to {@code gen} exactly as {@link #tree} would give it, without building the tree: the leader
     * writes one into every result it routes.
     */
    public void write(WorkerMessage.ImageDetection d, JsonGenerator gen) throws IOException {
        gen.writeStartObject();
        gen.writeStringField("type", d.type());
        gen.writeStringField("subscriptionIdentifier", d.subscriptionIdentifier());
        gen.writeStringField("timestamp", d.timestamp());
        gen.writeObjectFieldStart("data");
        gen.writeObjectFieldStart("detection");
        WorkerMessage.Detection x = d.detection();
        writeIfSet(gen, "carModel", x.carModel());
        writeIfSet(gen, "carBrand", x.carBrand());
        if (x.carYear() != null) {
            gen.writeNumberField("carYear", x.carYear());
        }
        writeIfSet(gen, "bodyType", x.bodyType());
        writeIfSet(gen, "licensePlateText", x.licensePlateText());
        writeIfSet(gen, "licensePlateType", x.licensePlateType());
        gen.writeEndObject();
        gen.writeNumberField("modelId", d.modelId());
        gen.writeStringField("modelName", d.modelName());
        gen.writeEndObject();
        gen.writeEndObject();
    }

    private static void writeIfSet(JsonGenerator gen, String field, String value) throws IOException {
        if (value != null) {
            gen.writeStringField(field, value);
        }
    }

    private static void putIfSet(ObjectNode node, String field, String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    private static void putIfSet(ObjectNode node, String field, Integer value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    /** Typed access to one JSON object's fields, with refusals that name the message type and the field path. */
    private record Fields(String type, String path, ObjectNode node) {

        private JsonNode required(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            if (value == null || value.isNull()) {
                throw new WorkerProtocolException(Problem.MISSING_FIELD,
                        type + ": required field " + path + field + " is missing");
            }
            return value;
        }

        private WorkerProtocolException wrong(String field, String expected, JsonNode value) {
            return new WorkerProtocolException(Problem.WRONG_FIELD_TYPE,
                    type + ": field " + path + field + " must be " + expected + ", was " + kind(value));
        }

        String text(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (!value.isTextual()) {
                throw wrong(field, "a string", value);
            }
            return value.textValue();
        }

        String optionalText(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            return value == null || value.isNull() ? null : text(field);
        }

        /** The seed's {@code Date}: an ISO-8601 string or epoch milliseconds, kept as text. */
        String timestamp(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (value.isTextual()) {
                return value.textValue();
            }
            if (value.isNumber()) {
                return value.asText();
            }
            throw wrong(field, "a string or a number", value);
        }

        double number(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (!value.isNumber()) {
                throw wrong(field, "a number", value);
            }
            double number = value.doubleValue();
            // 2e308 parses to Infinity, which JSON cannot carry back (the encoder would write the string "Infinity").
            if (!Double.isFinite(number)) {
                throw new WorkerProtocolException(Problem.WRONG_FIELD_TYPE,
                        type + ": field " + path + field + " is out of range for a number");
            }
            return number;
        }

        /** An optional number of at least 0 (Baton's per-item {@code cost}). */
        Double optionalCost(String field) throws WorkerProtocolException {
            Double value = optionalNumber(field);
            if (value != null && value < 0) {
                throw new WorkerProtocolException(Problem.WRONG_FIELD_TYPE,
                        type + ": field " + path + field + " must be at least 0, was " + value);
            }
            return value;
        }

        Double optionalNumber(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            return value == null || value.isNull() ? null : number(field);
        }

        long longValue(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            // 7.0 is accepted as 7: JavaScript and some Python serialisers do not tell integers from floats.
            if (!value.isNumber() || (!value.isIntegralNumber() && value.doubleValue() != Math.rint(value.doubleValue()))
                    || !value.canConvertToLong()) {
                throw wrong(field, "an integer", value);
            }
            return value.longValue();
        }

        Long optionalLong(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            return value == null || value.isNull() ? null : longValue(field);
        }

        Integer optionalInt(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            if (value == null || value.isNull()) {
                return null;
            }
            long v = longValue(field);
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw wrong(field, "a 32-bit integer", value);
            }
            return (int) v;
        }

        boolean bool(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (!value.isBoolean()) {
                throw wrong(field, "a boolean", value);
            }
            return value.booleanValue();
        }

        ArrayNode array(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (!(value instanceof ArrayNode array)) {
                throw wrong(field, "an array", value);
            }
            return array;
        }

        Fields object(String field) throws WorkerProtocolException {
            JsonNode value = required(field);
            if (!(value instanceof ObjectNode object)) {
                throw wrong(field, "an object", value);
            }
            return new Fields(type, path + field + ".", object);
        }

        Fields optionalObject(String field) throws WorkerProtocolException {
            JsonNode value = node.get(field);
            return value == null || value.isNull() ? null : object(field);
        }

        Fields element(String field, int index, JsonNode value) throws WorkerProtocolException {
            if (!(value instanceof ObjectNode object)) {
                throw wrong(field + "[" + index + "]", "an object", value);
            }
            return new Fields(type, path + field + "[" + index + "].", object);
        }
    }
}
