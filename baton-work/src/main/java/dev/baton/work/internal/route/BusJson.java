package dev.baton.work.internal.route;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.util.StdConverter;
import dev.baton.work.InvalidWorkItemException;
import dev.baton.work.WorkItem;
import dev.baton.work.WorkItemJson;
import dev.baton.work.internal.worker.WorkerProtocolCodec;
import dev.baton.work.internal.worker.WorkerProtocolException;
import dev.baton.work.worker.WorkerMessage;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Jackson set-up behind {@link BusCodec}: a mapper as strict as the bus needs (no coercion between strings,
 * numbers and booleans, duplicate fields refused, unknown fields ignored as in the worker protocol), the two fields
 * whose JSON belongs to another format (a routed result is the worker protocol's {@code imageDetection}; a
 * subscribed item is the stored item JSON), and the translation of Jackson's refusals into one-line problems that
 * name the message type and the field.
 */
final class BusJson {

    static final ObjectMapper MAPPER = mapper();

    private static final WorkerProtocolCodec WORKER_CODEC = new WorkerProtocolCodec();
    private static final Pattern MISSING = Pattern.compile("Missing required creator property '([^']*)'");

    private BusJson() {
    }

    private static ObjectMapper mapper() {
        JsonMapper mapper = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        // A number or a boolean where text belongs is refused too (Jackson would turn it into text).
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    /**
     * A refusal of binding as a {@link BusProtocolException}: "{@code <what>: field <name> is missing}",
     * "{@code ... must be a whole number}" (a string, a boolean, an array, an object), or the problem a nested format
     * found.
     */
    static BusProtocolException problem(String what, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BusProtocolException p) {
                return p;
            }
        }
        if (e instanceof InvalidNullException n && n.getPropertyName() != null) {
            return new BusProtocolException(what + ": field " + n.getPropertyName().getSimpleName() + " is missing", e);
        }
        String original = e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
        Matcher missing = MISSING.matcher(original == null ? "" : original);
        if (missing.find()) {
            return new BusProtocolException(what + ": field " + missing.group(1) + " is missing", e);
        }
        if (e instanceof JsonMappingException m) {
            String field = null;
            boolean element = false;
            for (JsonMappingException.Reference ref : m.getPath()) {
                if (ref.getFieldName() != null) {
                    field = ref.getFieldName();
                    element = false;
                } else {
                    element = true;
                }
            }
            if (field != null) {
                return new BusProtocolException(what + ": field " + field
                        + (element ? " must hold strings" : " must be " + expected(m)), e);
            }
        }
        String line = original == null ? e.getClass().getSimpleName() : original;
        int newline = line.indexOf('\n');
        return new BusProtocolException(what + ": " + (newline < 0 ? line : line.substring(0, newline)), e);
    }

    /** What the field should have been, from the type Jackson was reading. */
    private static String expected(Throwable e) {
        Class<?> target = null;
        for (Throwable t = e; t != null && target == null; t = t.getCause()) {
            if (t instanceof MismatchedInputException m) {
                target = m.getTargetType();
            } else if (t instanceof InputCoercionException c) {
                target = c.getTargetType();
            }
        }
        if (target == long.class || target == Long.class || target == int.class || target == Integer.class) {
            return "a whole number";
        }
        if (target == String.class) {
            return "a string";
        }
        if (target == boolean.class || target == Boolean.class) {
            return "a boolean";
        }
        if (target != null && Collection.class.isAssignableFrom(target)) {
            return "an array";
        }
        return "an object";
    }

    /** A routed result's {@code data}: the worker's {@code imageDetection}, in the worker protocol's own JSON. */
    static final class DetectionSerializer extends JsonSerializer<WorkerMessage.ImageDetection> {
        @Override
        public void serialize(WorkerMessage.ImageDetection value, JsonGenerator gen, SerializerProvider provider)
                throws IOException {
            WORKER_CODEC.write(value, gen);
        }
    }

    /** Reads a routed result's {@code data} with the worker protocol's codec. */
    static final class DetectionDeserializer extends JsonDeserializer<WorkerMessage.ImageDetection> {
        @Override
        public WorkerMessage.ImageDetection deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonNode data = p.readValueAsTree();
            WorkerMessage message;
            try {
                message = WORKER_CODEC.decodeMessage(data);
            } catch (WorkerProtocolException e) {
                throw nested(p, new BusProtocolException("detection: field data: " + e.getMessage(), e));
            }
            if (message instanceof WorkerMessage.ImageDetection detection) {
                return detection;
            }
            throw nested(p, new BusProtocolException("detection: field data must be an imageDetection"));
        }
    }

    /** A subscribed item, as the store keeps it ({@link WorkItemJson}). */
    static final class ItemSerializer extends JsonSerializer<WorkItem> {
        @Override
        public void serialize(WorkItem value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeTree(WorkItemJson.toTree(value));
        }
    }

    /** Reads a subscribed item with the item's own validation ({@link WorkItemJson#parse}). */
    static final class ItemDeserializer extends JsonDeserializer<WorkItem> {
        @Override
        public WorkItem deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonNode item = p.readValueAsTree();
            if (!(item instanceof ObjectNode)) {
                throw nested(p, new BusProtocolException("subscribe_camera: field item must be an object"));
            }
            try {
                return WorkItemJson.parse(MAPPER.writeValueAsBytes(item));
            } catch (InvalidWorkItemException e) {
                throw nested(p, new BusProtocolException("subscribe_camera: invalid item: " + e.getMessage(), e));
            }
        }
    }

    /** Writes a card's items sorted, so a card's JSON depends only on its contents. */
    static final class SortedItems extends StdConverter<Set<String>, List<String>> {
        @Override
        public List<String> convert(Set<String> items) {
            return items.stream().sorted().toList();
        }
    }

    /** Carries a nested format's refusal out of Jackson; {@link #problem} unwraps it. */
    private static JsonMappingException nested(JsonParser p, BusProtocolException problem) {
        return JsonMappingException.from(p, problem.getMessage(), problem);
    }
}
