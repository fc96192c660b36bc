package dev.baton.work;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The JSON helpers shared by the records the work cluster keeps in the store. */
final class StoreJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private StoreJson() {
    }

    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    static ObjectNode object(byte[] json, String what) {
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " is not JSON", e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new IllegalArgumentException(what + " is not a JSON object");
        }
        return object;
    }

    static String text(ObjectNode node, String field, String what) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(what + ": " + field + " must be a string");
        }
        return v.textValue();
    }

    static String requiredText(ObjectNode node, String field, String what) {
        String value = text(node, field, what);
        if (value == null) {
            throw new IllegalArgumentException(what + ": " + field + " is missing");
        }
        return value;
    }

    static Instant instant(ObjectNode node, String field, String what) {
        String value = text(node, field, what);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + ": " + field + " is not an ISO-8601 time: " + value, e);
        }
    }

    static Double number(ObjectNode node, String field, String what) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw new IllegalArgumentException(what + ": " + field + " must be a number");
        }
        return v.doubleValue();
    }

    static void put(ObjectNode node, String field, String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    static void put(ObjectNode node, String field, Instant value) {
        if (value != null) {
            node.put(field, value.toString());
        }
    }

    static void put(ObjectNode node, String field, Double value) {
        if (value != null) {
            node.put(field, value);
        }
    }
}
