package dev.baton.work;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * Where one desired item runs, as the leader recorded it: seed 001's {@code ActualCameraSubscription}, kept in the
 * store's {@code worker:actual_subscriptions} (item id -> this as JSON with the seed's field names), written only
 * under the leader's term.
 *
 * @param subscriptionIdentifier the item's id
 * @param assignedWorkerUrl      the worker it is assigned to; {@code null} while no worker can take it
 *                               ({@link Status#FAILED})
 * @param modelUrl               the model URL sent with the subscription (resolved at assignment time)
 * @param status                 see {@link Status}
 * @param assignedAt             when it was assigned to {@code assignedWorkerUrl}
 * @param lastSeen               when the leader last changed or confirmed this record
 * @param error                  why it is {@link Status#FAILED} or {@link Status#RECOVERING}, or {@code null}
 * @param attempts               failed attempts since it was last confirmed (for the retry backoff)
 */
public record ActualSubscription(String subscriptionIdentifier, String assignedWorkerUrl, String modelUrl,
                                 Status status, Instant assignedAt, Instant lastSeen, String error, int attempts) {

    /** The seed's subscription lifecycle states. */
    public enum Status {
        /** The assigned worker's state report lists the item. */
        ACTIVE,
        /** {@code subscribe} was sent; the worker has not confirmed it yet. */
        PENDING,
        /** No worker could take it (no worker online, no room), or resolving its assignment failed; retried. */
        FAILED,
        /** It is being moved or subscribed again after its worker lost it or did not confirm in time. */
        RECOVERING;

        /** The seed's lower-case name, as stored. */
        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Reads the seed's lower-case name. */
        public static Status fromJson(String text) {
            try {
                return valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown subscription status '" + text + "'", e);
            }
        }
    }

    public ActualSubscription {
        Objects.requireNonNull(subscriptionIdentifier, "subscriptionIdentifier");
        Objects.requireNonNull(status, "status");
    }

    /** This record with another status, error and attempt count, seen now. */
    public ActualSubscription with(Status newStatus, String newError, int newAttempts, Instant now) {
        return new ActualSubscription(subscriptionIdentifier, assignedWorkerUrl, modelUrl, newStatus, assignedAt, now,
                newError, newAttempts);
    }

    /** The stored JSON. */
    public byte[] toJson() {
        return StoreJson.bytes(toTree());
    }

    /** The stored JSON as a tree (the seed's field names; absent values left out). */
    public ObjectNode toTree() {
        ObjectNode node = StoreJson.MAPPER.createObjectNode();
        node.put("subscriptionIdentifier", subscriptionIdentifier);
        StoreJson.put(node, "assignedWorkerUrl", assignedWorkerUrl);
        StoreJson.put(node, "modelUrl", modelUrl);
        node.put("status", status.json());
        StoreJson.put(node, "assignedAt", assignedAt);
        StoreJson.put(node, "lastSeen", lastSeen);
        StoreJson.put(node, "error", error);
        if (attempts > 0) {
            node.put("attempts", attempts);
        }
        return node;
    }

    /**
     * Reads the stored JSON.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ActualSubscription fromJson(byte[] json) {
        String what = "actual subscription";
        ObjectNode node = StoreJson.object(json, what);
        JsonNode attempts = node.get("attempts");
        return new ActualSubscription(StoreJson.requiredText(node, "subscriptionIdentifier", what),
                StoreJson.text(node, "assignedWorkerUrl", what), StoreJson.text(node, "modelUrl", what),
                Status.fromJson(StoreJson.requiredText(node, "status", what)),
                StoreJson.instant(node, "assignedAt", what), StoreJson.instant(node, "lastSeen", what),
                StoreJson.text(node, "error", what), attempts == null ? 0 : attempts.asInt());
    }
}
