package dev.baton.work;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;

/**
 * One unit of desired work: seed 001's {@code DesiredCameraSubscription}, the camera stream a worker should run a
 * model on. The control plane stores these ({@code PUT /work/items/{id}}) and the work-assignment planner hands them
 * out; both build them through this record, so every item anywhere in Baton has passed the same checks.
 *
 * <p>Field names are the seed's and stay camelCase in JSON whatever naming the surrounding API uses. Absent optional
 * fields are {@code null} and are left out of the JSON. The constructor validates and throws
 * {@link InvalidWorkItemException} naming the field at fault; {@link WorkItemJson} parses the wire form with the same
 * rules plus the JSON-level ones (unknown fields, wrong types).
 *
 * @param subscriptionIdentifier the item's id, in the seed's format {@code <displayId>;<cameraId>}, e.g.
 *                               {@code display-1;camera-7}; any non-blank text without control characters, at most
 *                               {@value #MAX_ID_LENGTH} characters
 * @param rtspUrl                the camera's stream, an {@code rtsp://} or {@code rtsps://} URL; required
 * @param modelId                the AI model's database id, at least 1; required
 * @param modelName              the AI model's name; required
 * @param modelUrl               where a worker downloads the model (the seed's presigned URL), http(s); optional
 * @param snapshotUrl            an HTTP endpoint for camera snapshots, http(s); optional
 * @param snapshotInterval       milliseconds between snapshots, at least 1; optional
 * @param cropX1                 crop region top-left X in pixels; the four crop fields come together or not at all
 * @param cropY1                 crop region top-left Y in pixels
 * @param cropX2                 crop region bottom-right X in pixels, greater than {@code cropX1}
 * @param cropY2                 crop region bottom-right Y in pixels, greater than {@code cropY1}
 * @param weight                 relative cost for weighted balancing, 1 to {@value #MAX_WEIGHT}; optional, 1 when
 *                               absent (see {@link #effectiveWeight()})
 * @param createdAt              when the subscription was created, ISO-8601 UTC (the seed's field); optional
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.LowerCamelCaseStrategy.class)
@JsonPropertyOrder({"subscriptionIdentifier", "rtspUrl", "modelId", "modelName", "modelUrl", "snapshotUrl",
    "snapshotInterval", "cropX1", "cropY1", "cropX2", "cropY2", "weight", "createdAt"})
public record WorkItem(
        String subscriptionIdentifier,
        String rtspUrl,
        Long modelId,
        String modelName,
        String modelUrl,
        String snapshotUrl,
        Long snapshotInterval,
        Integer cropX1,
        Integer cropY1,
        Integer cropX2,
        Integer cropY2,
        Integer weight,
        String createdAt) {

    /** The longest accepted id. */
    public static final int MAX_ID_LENGTH = 512;
    /** The longest accepted text field (URLs, model name). */
    public static final int MAX_TEXT_LENGTH = 4096;
    /** The largest accepted weight. */
    public static final int MAX_WEIGHT = 1_000_000;

    private static final Set<String> STREAM_SCHEMES = Set.of("rtsp", "rtsps");
    private static final Set<String> WEB_SCHEMES = Set.of("http", "https");

    public WorkItem {
        subscriptionIdentifier = checkId(subscriptionIdentifier);
        rtspUrl = url("rtspUrl", required("rtspUrl", rtspUrl), STREAM_SCHEMES);
        if (modelId == null) {
            throw missing("modelId");
        }
        if (modelId < 1) {
            throw new InvalidWorkItemException("modelId", "modelId must be at least 1, was " + modelId);
        }
        modelName = text("modelName", required("modelName", modelName));
        modelUrl = modelUrl == null ? null : url("modelUrl", modelUrl, WEB_SCHEMES);
        snapshotUrl = snapshotUrl == null ? null : url("snapshotUrl", snapshotUrl, WEB_SCHEMES);
        if (snapshotInterval != null && snapshotInterval < 1) {
            throw new InvalidWorkItemException("snapshotInterval",
                    "snapshotInterval must be at least 1 (milliseconds), was " + snapshotInterval);
        }
        checkCrop(cropX1, cropY1, cropX2, cropY2);
        if (weight != null && (weight < 1 || weight > MAX_WEIGHT)) {
            throw new InvalidWorkItemException("weight",
                    "weight must be from 1 to " + MAX_WEIGHT + ", was " + weight);
        }
        if (createdAt != null) {
            try {
                createdAt = Instant.parse(createdAt).toString();
            } catch (DateTimeParseException e) {
                throw new InvalidWorkItemException("createdAt",
                        "createdAt must be an ISO-8601 UTC timestamp such as 2026-01-31T12:00:00Z, was '"
                                + createdAt + "'");
            }
        }
    }

    /** The id, checked: what may name an item. */
    public static String checkId(String id) {
        if (id == null || id.isBlank()) {
            throw new InvalidWorkItemException("subscriptionIdentifier", "the item id must not be blank");
        }
        if (id.length() > MAX_ID_LENGTH) {
            throw new InvalidWorkItemException("subscriptionIdentifier",
                    "the item id must be at most " + MAX_ID_LENGTH + " characters, was " + id.length());
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidWorkItemException("subscriptionIdentifier",
                    "the item id must not contain control characters");
        }
        return id;
    }

    /** The weight the planner balances with: {@link #weight()}, or 1 when none was given. */
    @JsonIgnore
    public int effectiveWeight() {
        return weight == null ? 1 : weight;
    }

    /** Whether the item has a crop region (then all four crop fields are set). */
    @JsonIgnore
    public boolean hasCrop() {
        return cropX1 != null;
    }

    /** This item under another id (the API takes the id from the path). */
    public WorkItem withSubscriptionIdentifier(String id) {
        return new WorkItem(id, rtspUrl, modelId, modelName, modelUrl, snapshotUrl, snapshotInterval, cropX1, cropY1,
                cropX2, cropY2, weight, createdAt);
    }

    /** This item with another model URL, e.g. a fresh pre-signed one resolved at assignment time. */
    public WorkItem withModelUrl(String url) {
        return new WorkItem(subscriptionIdentifier, rtspUrl, modelId, modelName, url, snapshotUrl, snapshotInterval,
                cropX1, cropY1, cropX2, cropY2, weight, createdAt);
    }

    /** This item with a creation time (ISO-8601 UTC). */
    public WorkItem withCreatedAt(String timestamp) {
        return new WorkItem(subscriptionIdentifier, rtspUrl, modelId, modelName, modelUrl, snapshotUrl,
                snapshotInterval, cropX1, cropY1, cropX2, cropY2, weight, timestamp);
    }

    /**
     * A builder for an item with the given id; {@link Builder#build()} validates like the constructor. The facade
     * ({@code WorkCluster.subscribe}) further requires the seed's {@code displayId;cameraId} id format.
     */
    public static Builder builder(String subscriptionIdentifier) {
        return new Builder(subscriptionIdentifier);
    }

    /** Collects an item's fields; not thread-safe. Every setter returns the builder. */
    public static final class Builder {
        private final String subscriptionIdentifier;
        private String rtspUrl;
        private Long modelId;
        private String modelName;
        private String modelUrl;
        private String snapshotUrl;
        private Long snapshotInterval;
        private Integer cropX1;
        private Integer cropY1;
        private Integer cropX2;
        private Integer cropY2;
        private Integer weight;
        private String createdAt;

        private Builder(String subscriptionIdentifier) {
            this.subscriptionIdentifier = subscriptionIdentifier;
        }

        /** The camera's stream, {@code rtsp://} or {@code rtsps://}; required. */
        public Builder rtspUrl(String value) {
            this.rtspUrl = value;
            return this;
        }

        /** The AI model's database id (at least 1) and name; both required. */
        public Builder model(long id, String name) {
            this.modelId = id;
            this.modelName = name;
            return this;
        }

        /** Where a worker downloads the model, http(s); optional (an assignment hook may supply it instead). */
        public Builder modelUrl(String value) {
            this.modelUrl = value;
            return this;
        }

        /** A snapshot endpoint, http(s), and the interval between snapshots; both optional. */
        public Builder snapshot(String url, Duration interval) {
            this.snapshotUrl = url;
            this.snapshotInterval = interval == null ? null : interval.toMillis();
            return this;
        }

        /** The crop region in pixels: top-left ({@code x1}, {@code y1}), bottom-right ({@code x2}, {@code y2}). */
        public Builder crop(int x1, int y1, int x2, int y2) {
            this.cropX1 = x1;
            this.cropY1 = y1;
            this.cropX2 = x2;
            this.cropY2 = y2;
            return this;
        }

        /** The cost in weighted balancing, 1 to {@value WorkItem#MAX_WEIGHT}; optional (1). */
        public Builder weight(int value) {
            this.weight = value;
            return this;
        }

        /** When the subscription was created, ISO-8601 UTC; optional. */
        public Builder createdAt(String value) {
            this.createdAt = value;
            return this;
        }

        /**
         * The item.
         *
         * @throws InvalidWorkItemException naming the first field at fault
         */
        public WorkItem build() {
            return new WorkItem(subscriptionIdentifier, rtspUrl, modelId, modelName, modelUrl, snapshotUrl,
                    snapshotInterval, cropX1, cropY1, cropX2, cropY2, weight, createdAt);
        }
    }

    private static void checkCrop(Integer x1, Integer y1, Integer x2, Integer y2) {
        Integer[] values = {x1, y1, x2, y2};
        String[] names = {"cropX1", "cropY1", "cropX2", "cropY2"};
        int present = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                present++;
                if (values[i] < 0) {
                    throw new InvalidWorkItemException(names[i], names[i] + " must not be negative, was " + values[i]);
                }
            }
        }
        if (present == 0) {
            return;
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                throw new InvalidWorkItemException(names[i],
                        names[i] + " is missing: a crop region needs all of cropX1, cropY1, cropX2 and cropY2");
            }
        }
        if (x2 <= x1) {
            throw new InvalidWorkItemException("cropX2", "cropX2 must be greater than cropX1 (" + x1 + "), was " + x2);
        }
        if (y2 <= y1) {
            throw new InvalidWorkItemException("cropY2", "cropY2 must be greater than cropY1 (" + y1 + "), was " + y2);
        }
    }

    private static String required(String field, String value) {
        if (value == null) {
            throw missing(field);
        }
        return value;
    }

    private static InvalidWorkItemException missing(String field) {
        return new InvalidWorkItemException(field, field + " is required");
    }

    private static String text(String field, String value) {
        if (value.isBlank()) {
            throw new InvalidWorkItemException(field, field + " must not be blank");
        }
        if (value.length() > MAX_TEXT_LENGTH) {
            throw new InvalidWorkItemException(field,
                    field + " must be at most " + MAX_TEXT_LENGTH + " characters, was " + value.length());
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidWorkItemException(field, field + " must not contain control characters");
        }
        return value;
    }

    private static String url(String field, String value, Set<String> schemes) {
        text(field, value);
        String expected = String.join(" or ", schemes.stream().sorted().map(s -> s + "://").toList());
        try {
            URI uri = new URI(value);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!schemes.contains(scheme) || uri.getHost() == null) {
                throw new InvalidWorkItemException(field,
                        field + " must be an absolute " + expected + " URL with a host, was '" + value + "'");
            }
        } catch (URISyntaxException e) {
            throw new InvalidWorkItemException(field, field + " is not a valid URL: " + e.getReason());
        }
        return value;
    }
}
