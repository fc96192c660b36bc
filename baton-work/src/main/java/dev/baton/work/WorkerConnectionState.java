package dev.baton.work;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One worker's connection as the leader last recorded it: seed 001's {@code WorkerConnectionState}, kept in the
 * store's {@code worker:connections} (worker URL -> this as JSON with the seed's field names). The leader writes it
 * when the connection changes state and at most every 2 s while state reports arrive (the seed's
 * {@code STATE_UPDATE_INTERVAL}).
 *
 * @param url               the worker's WebSocket URL
 * @param processId         the process holding the connection (the leader that wrote this)
 * @param online            whether the worker was online (connected and reporting)
 * @param status            the connection's state ({@code connecting}, {@code online}, {@code reconnecting}, ...)
 * @param cpuUsage          CPU as the worker reported it, or {@code null}
 * @param memoryUsage       memory as the worker reported it, or {@code null}
 * @param gpuUsage          GPU, or {@code null}
 * @param gpuMemoryUsage    GPU memory, or {@code null}
 * @param subscriptionCount how many subscriptions the worker reported
 * @param subscriptions     the subscriptions the worker reported, sorted
 * @param lastHeartbeat     when its last state report arrived, or {@code null}
 * @param connectedAt       when the current connection opened, or {@code null}
 */
public record WorkerConnectionState(String url, String processId, boolean online, String status, Double cpuUsage,
                                    Double memoryUsage, Double gpuUsage, Double gpuMemoryUsage,
                                    int subscriptionCount, List<String> subscriptions, Instant lastHeartbeat,
                                    Instant connectedAt) {

    public WorkerConnectionState {
        Objects.requireNonNull(url, "url");
        subscriptions = List.copyOf(subscriptions);
    }

    /** A worker nothing is known about yet: offline. */
    public static WorkerConnectionState unknown(String url) {
        return new WorkerConnectionState(url, null, false, "unknown", null, null, null, null, 0, List.of(), null,
                null);
    }

    /** The stored JSON. */
    public byte[] toJson() {
        return StoreJson.bytes(toTree());
    }

    /** The stored JSON as a tree (the seed's field names plus {@code status}). */
    public ObjectNode toTree() {
        ObjectNode node = StoreJson.MAPPER.createObjectNode();
        node.put("url", url);
        StoreJson.put(node, "processId", processId);
        node.put("online", online);
        StoreJson.put(node, "status", status);
        StoreJson.put(node, "cpuUsage", cpuUsage);
        StoreJson.put(node, "memoryUsage", memoryUsage);
        StoreJson.put(node, "gpuUsage", gpuUsage);
        StoreJson.put(node, "gpuMemoryUsage", gpuMemoryUsage);
        node.put("subscriptionCount", subscriptionCount);
        ArrayNode array = node.putArray("subscriptions");
        subscriptions.forEach(array::add);
        StoreJson.put(node, "lastHeartbeat", lastHeartbeat);
        StoreJson.put(node, "connectedAt", connectedAt);
        return node;
    }

    /**
     * Reads the stored JSON.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static WorkerConnectionState fromJson(byte[] json) {
        String what = "worker connection state";
        ObjectNode node = StoreJson.object(json, what);
        List<String> subscriptions = new ArrayList<>();
        JsonNode array = node.get("subscriptions");
        if (array != null && array.isArray()) {
            array.forEach(s -> subscriptions.add(s.asText()));
        }
        JsonNode online = node.get("online");
        JsonNode count = node.get("subscriptionCount");
        return new WorkerConnectionState(StoreJson.requiredText(node, "url", what),
                StoreJson.text(node, "processId", what), online != null && online.asBoolean(),
                StoreJson.text(node, "status", what), StoreJson.number(node, "cpuUsage", what),
                StoreJson.number(node, "memoryUsage", what), StoreJson.number(node, "gpuUsage", what),
                StoreJson.number(node, "gpuMemoryUsage", what), count == null ? subscriptions.size() : count.asInt(),
                subscriptions, StoreJson.instant(node, "lastHeartbeat", what),
                StoreJson.instant(node, "connectedAt", what));
    }
}
