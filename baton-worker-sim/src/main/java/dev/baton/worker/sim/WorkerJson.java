package dev.baton.worker.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The worker side's JSON messages. The simulated worker cannot use baton-work's codec (baton-work's tests run against
 * it), so it writes the few messages a worker sends and reads the commands it is sent as Jackson trees.
 */
final class WorkerJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** A result line cut off in the middle: what a flood sends every tenth message. */
    static final String TRUNCATED_DETECTION = "{\"type\":\"imageDetection\",\"subscriptionIdentifier\":";

    private static final String[] BRANDS = {"Honda", "Toyota", "Volvo", "Skoda"};

    private WorkerJson() {
    }

    /**
     * A {@code stateReport} listing {@code subscriptions} (by identifier, sorted) as online camera connections, each
     * with its {@code cost} where {@code costs} has one.
     */
    static String stateReport(double cpuUsage, double memoryUsage, Map<String, ObjectNode> subscriptions,
                              Map<String, Double> costs) {
        ObjectNode m = MAPPER.createObjectNode().put("type", "stateReport").put("cpuUsage", cpuUsage)
                .put("memoryUsage", memoryUsage);
        ArrayNode connections = m.putArray("cameraConnections");
        for (ObjectNode s : new TreeMap<>(subscriptions).values()) {
            ObjectNode c = connections.addObject();
            c.put("subscriptionIdentifier", s.path("subscriptionIdentifier").asText());
            c.set("modelId", s.path("modelId"));
            c.put("modelName", s.path("modelName").asText(""));
            c.put("online", true);
            if (s.hasNonNull("cropX1")) {
                c.set("cropX", s.get("cropX1"));
            }
            if (s.hasNonNull("cropY1")) {
                c.set("cropY", s.get("cropY1"));
            }
            Double cost = costs.get(s.path("subscriptionIdentifier").asText());
            if (cost != null) {
                c.put("cost", cost);
            }
        }
        return m.toString();
    }

    /** The {@code n}th {@code imageDetection}: a made-up car for {@code subscription}, stamped {@code now}. */
    static String detection(ObjectNode subscription, long n, Instant now) {
        ObjectNode m = MAPPER.createObjectNode().put("type", "imageDetection")
                .put("subscriptionIdentifier", subscription.path("subscriptionIdentifier").asText())
                .put("timestamp", now.toString());
        ObjectNode data = m.putObject("data");
        data.putObject("detection").put("carBrand", BRANDS[(int) (n % BRANDS.length)]).put("carModel", "Model " + n % 7)
                .put("carYear", 2015 + (int) (n % 10)).put("bodyType", n % 2 == 0 ? "sedan" : "suv")
                .put("licensePlateText", "SIM-" + n).put("licensePlateType", "simulated");
        data.set("modelId", subscription.path("modelId"));
        data.put("modelName", subscription.path("modelName").asText(""));
        return m.toString();
    }

    /** The subscription a flood sends results for when the worker holds none. */
    static ObjectNode floodPlaceholder() {
        return MAPPER.createObjectNode().put("subscriptionIdentifier", "flood;camera").put("modelId", 1)
                .put("modelName", "flood");
    }

    /** Baton's {@code draining}: the worker is about to stop; {@code reason} may be null. */
    static String draining(String reason) {
        ObjectNode m = MAPPER.createObjectNode().put("type", "draining");
        if (reason != null) {
            m.put("reason", reason);
        }
        return m.toString();
    }

    /** A {@code patchSession} carrying {@code dataJson} (any JSON value). */
    static String patchSession(long sessionId, String dataJson) {
        ObjectNode m = MAPPER.createObjectNode().put("type", "patchSession").put("sessionId", sessionId);
        try {
            m.set("data", MAPPER.readTree(dataJson));
        } catch (IOException e) {
            throw new IllegalArgumentException("dataJson is not JSON: " + dataJson, e);
        }
        return m.toString();
    }

    /** One piece of bad input; {@code oversizedBytes} is the size of {@link SimulatedWorker.Garbage#OVERSIZED}. */
    static String garbage(SimulatedWorker.Garbage garbage, int oversizedBytes) {
        return switch (garbage) {
            case MALFORMED_JSON -> "{\"type\":\"stateReport\",\"cpuUsage\":";
            case UNKNOWN_TYPE -> "{\"type\":\"hello\",\"from\":\"simulated-worker\"}";
            case OVERSIZED -> oversized(oversizedBytes);
        };
    }

    /** A well-formed patchSession of exactly {@code bytes} bytes (or its smallest form if that is less). */
    private static String oversized(int bytes) {
        String head = "{\"type\":\"patchSession\",\"sessionId\":1,\"data\":\"";
        String tail = "\"}";
        return head + "x".repeat(Math.max(0, bytes - head.length() - tail.length())) + tail;
    }

    /** The message's {@code type}, or {@code "?"} for text that is not a JSON message. */
    static String typeOf(String json) {
        try {
            return MAPPER.readTree(json).path("type").asText("?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** The command as a tree, or null for text that is not JSON (a worker ignores what it cannot read). */
    static JsonNode read(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }
}
