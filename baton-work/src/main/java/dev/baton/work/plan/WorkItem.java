package dev.baton.work.plan;

import java.util.Objects;

/**
 * One desired unit of work (in seed 001, a camera subscription), identified by a non-empty id.
 *
 * @param id the item's id, unique among the desired items
 * @param weight the item's cost in {@link BalanceMode#WEIGHTED} mode, at least 1 (default 1); ignored in
 *     {@link BalanceMode#COUNT} mode, where every item counts as one
 */
public record WorkItem(String id, long weight) {

    /** The weight of an item created without one. */
    public static final long DEFAULT_WEIGHT = 1;

    public WorkItem {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("item id must not be empty");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight of item '" + id + "' must be at least 1, got " + weight);
        }
    }

    /** An item of weight {@value #DEFAULT_WEIGHT}. */
    public static WorkItem of(String id) {
        return new WorkItem(id, DEFAULT_WEIGHT);
    }

    /** An item of the given weight. */
    public static WorkItem of(String id, long weight) {
        return new WorkItem(id, weight);
    }
}
