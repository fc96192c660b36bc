package dev.baton.etcd.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.FencedValue;
import dev.baton.core.store.LeaderRecord;
import io.etcd.jetcd.ByteSequence;
import java.io.IOException;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON values the etcd store keeps: process entries (seed 000's {@code ProcessInfo} field names, as the Redis
 * store writes them), fenced values, cluster events and leader records. Decoding a value this store did not write
 * fails with {@link IllegalArgumentException}.
 */
public final class EtcdJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private EtcdJson() {
    }

    /** A process entry; timestamps only when set. */
    public static ByteSequence node(NodeInfo node) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("processId", node.id());
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
        return write(json);
    }

    /** A process entry read back, with {@code role}. */
    public static NodeInfo node(ByteSequence bytes, Role role) {
        JsonNode json = read(bytes);
        String id = json.path("processId").asText(null);
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("process entry without a processId");
        }
        JsonNode c = json.path("capabilities");
        Capabilities d = Capabilities.DEFAULT;
        Capabilities capabilities = new Capabilities(c.path("canProcessDetections").asBoolean(d.canProcessDetections()),
                c.path("maxSubscriptions").asInt(d.maxSubscriptions()),
                c.path("preferredWorkload").asInt(d.preferredWorkload()));
        Map<String, String> metadata = new HashMap<>();
        json.path("metadata").fields().forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
        String api = json.path("apiAddress").isTextual() ? json.get("apiAddress").asText() : null;
        return new NodeInfo(id, json.path("identifier").asText(id), api, role, capabilities, metadata,
                instant(json, "registeredAt"), instant(json, "lastSeen"));
    }

    /** A fenced register value or map entry. */
    public static ByteSequence fenced(long term, String writer, byte[] value) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("term", term);
        json.put("writer", writer);
        json.put("value", Base64.getEncoder().encodeToString(value));
        return write(json);
    }

    public static FencedValue fenced(ByteSequence bytes) {
        JsonNode json = read(bytes);
        return new FencedValue(json.path("term").asLong(), json.path("writer").asText(),
                Base64.getDecoder().decode(json.path("value").asText()));
    }

    /** A cluster event without its id, which is the key's create revision. */
    public static ByteSequence event(String nodeId, String type, Map<String, String> data, Instant at) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("nodeId", nodeId);
        json.put("type", type);
        ObjectNode details = json.putObject("data");
        data.forEach(details::put);
        json.put("at", at.toString());
        return write(json);
    }

    /** The parts of an event: node id, type, data and time. */
    public static JsonNode event(ByteSequence bytes) {
        return read(bytes);
    }

    public static Map<String, String> stringMap(JsonNode object) {
        Map<String, String> map = new HashMap<>();
        object.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
        return map;
    }

    public static ByteSequence leaderRecord(LeaderRecord record) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("group", record.group());
        json.put("term", record.term());
        json.put("leaderId", record.leaderId());
        json.put("processId", record.processId());
        json.put("address", record.address());
        return write(json);
    }

    public static LeaderRecord leaderRecord(ByteSequence bytes) {
        JsonNode json = read(bytes);
        return new LeaderRecord(json.path("group").asText(), json.path("term").asLong(),
                json.path("leaderId").asText(), json.path("processId").asLong(), json.path("address").asText());
    }

    static Instant instant(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || !value.isTextual() ? null : Instant.parse(value.asText());
    }

    private static ByteSequence write(JsonNode json) {
        try {
            return ByteSequence.from(MAPPER.writeValueAsBytes(json));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + json, e);
        }
    }

    private static JsonNode read(ByteSequence bytes) {
        try {
            JsonNode json = MAPPER.readTree(bytes.getBytes());
            if (json == null || !json.isObject()) {
                throw new IllegalArgumentException("not a JSON object");
            }
            return json;
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
    }
}
