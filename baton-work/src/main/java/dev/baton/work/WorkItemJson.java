package dev.baton.work;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON wire form of a {@link WorkItem}, parsed strictly: every problem becomes an {@link InvalidWorkItemException}
 * that names the field, so a client is told exactly what to fix. Strict means: the body is one JSON object; no field
 * outside the seed's set; no field twice; strings are strings and numbers are whole numbers (no {@code "5"} for 5, no
 * 5.5 for a count); JSON {@code null} means absent. Thread-safe.
 */
public final class WorkItemJson {

    /** Every field the wire form may carry, in the seed's spelling. */
    public static final List<String> FIELDS = List.of("subscriptionIdentifier", "rtspUrl", "modelId", "modelName",
            "modelUrl", "snapshotUrl", "snapshotInterval", "cropX1", "cropY1", "cropX2", "cropY2", "weight",
            "createdAt");

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private WorkItemJson() {
    }

    /**
     * Parses an item sent for {@code id}. The body may repeat the id as {@code subscriptionIdentifier}; if it does,
     * it must match.
     *
     * @throws InvalidWorkItemException naming the field at fault, or with no field if the JSON is malformed
     */
    public static WorkItem parse(byte[] json, String id) {
        WorkItem.checkId(id);
        Map<String, JsonNode> fields = fields(json);
        String inBody = string(fields, "subscriptionIdentifier");
        if (inBody != null && !inBody.equals(id)) {
            throw new InvalidWorkItemException("subscriptionIdentifier",
                    "subscriptionIdentifier '" + inBody + "' does not match the item id '" + id + "'");
        }
        return build(fields, id);
    }

    /**
     * Parses a complete item, as stored: {@code subscriptionIdentifier} is required.
     *
     * @throws InvalidWorkItemException naming the field at fault, or with no field if the JSON is malformed
     */
    public static WorkItem parse(byte[] json) {
        Map<String, JsonNode> fields = fields(json);
        return build(fields, string(fields, "subscriptionIdentifier"));
    }

    /** The item as compact JSON, UTF-8, fields in the seed's order, absent ones left out. */
    public static byte[] toJson(WorkItem item) {
        try {
            return MAPPER.writeValueAsBytes(item);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a work item as JSON", e);
        }
    }

    /** The item as a JSON tree, e.g. to embed in a larger response. */
    public static JsonNode toTree(WorkItem item) {
        return MAPPER.valueToTree(item);
    }

    private static WorkItem build(Map<String, JsonNode> fields, String id) {
        return new WorkItem(id,
                string(fields, "rtspUrl"),
                longValue(fields, "modelId"),
                string(fields, "modelName"),
                string(fields, "modelUrl"),
                string(fields, "snapshotUrl"),
                longValue(fields, "snapshotInterval"),
                intValue(fields, "cropX1"),
                intValue(fields, "cropY1"),
                intValue(fields, "cropX2"),
                intValue(fields, "cropY2"),
                intValue(fields, "weight"),
                string(fields, "createdAt"));
    }

    private static Map<String, JsonNode> fields(byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw InvalidWorkItemException.malformed(JsonProblem.describe(e));
        } catch (IOException e) {
            throw InvalidWorkItemException.malformed("the body could not be read as JSON");
        }
        if (root == null || root.isMissingNode()) {
            throw InvalidWorkItemException.malformed("the body is empty: expected a JSON object");
        }
        if (!root.isObject()) {
            throw InvalidWorkItemException.malformed("the body must be a JSON object, was " + kind(root));
        }
        Map<String, JsonNode> fields = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (!FIELDS.contains(field.getKey())) {
                throw new InvalidWorkItemException(field.getKey(), "unknown field '" + field.getKey()
                        + "' (known fields: " + String.join(", ", FIELDS) + ")");
            }
            if (!field.getValue().isNull()) {
                fields.put(field.getKey(), field.getValue());
            }
        }
        return fields;
    }

    private static String string(Map<String, JsonNode> fields, String name) {
        JsonNode value = fields.get(name);
        if (value == null) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidWorkItemException(name, name + " must be a string, was " + kind(value));
        }
        return value.textValue();
    }

    private static Long longValue(Map<String, JsonNode> fields, String name) {
        JsonNode value = fields.get(name);
        if (value == null) {
            return null;
        }
        if (!value.isIntegralNumber()) {
            throw new InvalidWorkItemException(name, name + " must be a whole number, was " + kind(value));
        }
        if (!value.canConvertToLong()) {
            throw new InvalidWorkItemException(name, name + " is out of range: " + value.asText());
        }
        return value.longValue();
    }

    private static Integer intValue(Map<String, JsonNode> fields, String name) {
        JsonNode value = fields.get(name);
        if (value == null) {
            return null;
        }
        if (!value.isIntegralNumber()) {
            throw new InvalidWorkItemException(name, name + " must be a whole number, was " + kind(value));
        }
        if (!value.canConvertToInt()) {
            throw new InvalidWorkItemException(name, name + " is out of range: " + value.asText());
        }
        return value.intValue();
    }

    private static String kind(JsonNode value) {
        if (value.isTextual()) {
            String text = value.textValue();
            return "the string \"" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "\"";
        }
        if (value.isNumber()) {
            return "the number " + value.asText();
        }
        return switch (value.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case BOOLEAN -> "the boolean " + value.asText();
            default -> value.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

}
