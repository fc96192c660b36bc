package dev.baton.server.internal.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * How the API writes JSON: objects built field by field (so names are snake_case and in a fixed order, whatever the
 * Java names), timestamps as ISO-8601 UTC with milliseconds, {@code application/json} with UTF-8.
 */
final class ApiJson {

    static final String CONTENT_TYPE = "application/json";

    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final DateTimeFormatter TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ApiJson() {
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** {@code instant} as {@code 2026-11-21T17:00:00.123Z}, or JSON null. */
    static void putTime(ObjectNode json, String field, Instant instant) {
        if (instant == null) {
            json.putNull(field);
        } else {
            json.put(field, TIMESTAMP.format(instant));
        }
    }

    /** Answers {@code status} with {@code body}. */
    static void send(Context ctx, int status, JsonNode body) {
        try {
            ctx.status(status).contentType(CONTENT_TYPE).result(MAPPER.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The error body every failure answers with: {@code {"error": code, "message": text}}. */
    static ObjectNode error(String error, String message) {
        ObjectNode json = object();
        json.put("error", error);
        json.put("message", message);
        return json;
    }
}
