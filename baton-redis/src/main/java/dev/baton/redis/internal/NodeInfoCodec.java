package dev.baton.redis.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON form of a {@link NodeInfo} in Redis, using seed 000's {@code ProcessInfo} / {@code SlaveNode} field names
 * so the seed's readers understand Baton's entries:
 *
 * <pre>{@code
 * {"processId":"…","nodeId":"…","identifier":"orders-api","role":"slave","apiAddress":"http://…",
 *  "channelName":"worker:slave:…",
 *  "capabilities":{"canProcessDetections":true,"maxSubscriptions":100,"preferredWorkload":80},
 *  "metadata":{"zone":"a"},"registeredAt":"2026-01-01T00:00:00.000Z","lastSeen":"2026-01-01T00:00:10.000Z"}
 * }</pre>
 *
 * <p>Decoding is lenient about what the seed may write: unknown fields are ignored, a missing {@code identifier}
 * falls back to the id, missing capabilities to {@link Capabilities#DEFAULT}, non-text metadata values become their
 * JSON text. Text that is not such an object is rejected with {@link IllegalArgumentException}.
 */
public final class NodeInfoCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The JSON bytes for {@code node}; timestamps are written only when set (the scripts stamp store time). */
    public byte[] encode(NodeInfo node) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("processId", node.id());
        json.put("nodeId", node.id());
        json.put("identifier", node.identifier());
        json.put("role", node.role().seedName());
        json.put("apiAddress", node.apiAddress());
        json.put("channelName", node.channelName());
        ObjectNode capabilities = json.putObject("capabilities");
        capabilities.put("canProcessDetections", node.capabilities().canProcessDetections());
        capabilities.put("maxSubscriptions", node.capabilities().maxSubscriptions());
        capabilities.put("preferredWorkload", node.capabilities().preferredWorkload());
        ObjectNode metadata = json.putObject("metadata");
        node.metadata().forEach(metadata::put);
        if (node.registeredAt() != null) {
            json.put("registeredAt", node.registeredAt().toString());
        }
        if (node.lastSeen() != null) {
            json.put("lastSeen", node.lastSeen().toString());
        }
        try {
            return MAPPER.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + node.id(), e);
        }
    }

    /**
     * Reads an entry. Uses Jackson's streaming parser, since listing a large registry decodes thousands of entries
     * per call.
     *
     * @throws IllegalArgumentException if {@code json} is not a process object with an id
     */
    public NodeInfo decode(byte[] json) {
        try (JsonParser parser = MAPPER.getFactory().createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            return readProcess(parser);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
    }

    private static NodeInfo readProcess(JsonParser parser) throws IOException {
        String processId = null;
        String nodeId = null;
        String identifier = null;
        String role = null;
        String apiAddress = null;
        Capabilities capabilities = Capabilities.DEFAULT;
        Map<String, String> metadata = Map.of();
        Instant registeredAt = null;
        Instant lastSeen = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.getCurrentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case "processId" -> processId = text(parser, value);
                case "nodeId" -> nodeId = text(parser, value);
                case "identifier" -> identifier = text(parser, value);
                case "role" -> role = text(parser, value);
                case "apiAddress" -> apiAddress = text(parser, value);
                case "capabilities" -> capabilities = capabilities(parser, value);
                case "metadata" -> metadata = metadata(parser, value);
                case "registeredAt" -> registeredAt = IsoInstants.parse(text(parser, value));
                case "lastSeen" -> lastSeen = IsoInstants.parse(text(parser, value));
                default -> parser.skipChildren();
            }
        }
        String id = processId != null ? processId : nodeId;
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("no processId");
        }
        return new NodeInfo(id, identifier == null || identifier.isBlank() ? id : identifier, apiAddress,
                role == null ? Role.FOLLOWER : parseRole(role), capabilities, metadata, registeredAt, lastSeen);
    }

    private static Role parseRole(String text) {
        try {
            return Role.parse(text);
        } catch (IllegalArgumentException e) {
            return Role.FOLLOWER; // the role read back is derived from the lease anyway
        }
    }

    private static Capabilities capabilities(JsonParser parser, JsonToken start) throws IOException {
        Capabilities d = Capabilities.DEFAULT;
        if (start != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return d;
        }
        boolean canProcess = d.canProcessDetections();
        int maxSubscriptions = d.maxSubscriptions();
        int preferredWorkload = d.preferredWorkload();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.getCurrentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case "canProcessDetections" ->
                        canProcess = value.isBoolean() ? parser.getBooleanValue() : canProcess;
                case "maxSubscriptions" ->
                        maxSubscriptions = value.isNumeric() ? parser.getIntValue() : maxSubscriptions;
                case "preferredWorkload" ->
                        preferredWorkload = value.isNumeric() ? parser.getIntValue() : preferredWorkload;
                default -> parser.skipChildren();
            }
        }
        return new Capabilities(canProcess, maxSubscriptions, preferredWorkload);
    }

    private static Map<String, String> metadata(JsonParser parser, JsonToken start) throws IOException {
        if (start != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return Map.of();
        }
        Map<String, String> metadata = new HashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = parser.getCurrentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_STRING) {
                metadata.put(key, parser.getText());
            } else if (value.isStructStart()) {
                metadata.put(key, MAPPER.readTree(parser).toString()); // seed metadata may hold any JSON
            } else if (value != JsonToken.VALUE_NULL) {
                metadata.put(key, parser.getText());
            }
        }
        return metadata;
    }

    private static String text(JsonParser parser, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return parser.getText();
        }
        parser.skipChildren();
        return null;
    }
}
