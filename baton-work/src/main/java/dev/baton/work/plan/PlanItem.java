package dev.baton.work.plan;

import java.util.Objects;

/**
 * One desired unit of work as the planner sees it: an id and a weight (the whole item, seed 001's camera
 * subscription, is {@link dev.baton.work.WorkItem}; the reconciler hands the planner only these two fields).
 *
 * @param id the item's id, unique among the desired items
 * @param weight the item's cost in {@link BalanceMode#WEIGHTED} mode, at least 1 (default 1); ignored in
 *     {@link BalanceMode#COUNT} mode, where every item counts as one
 */
public record PlanItem(String id, long weight) {

    /** The weight of an item created without one. */
    public static final long DEFAULT_WEIGHT = 1;

    public PlanItem {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("item id must not be empty");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight of item '" + id + "' must be at least 1, got " + weight);
        }
    }

    /** An item of weight {@value #DEFAULT_WEIGHT}. */
    public static PlanItem of(String id) {
        return new PlanItem(id, DEFAULT_WEIGHT);
    }

    /** An item of the given weight. */
    public static PlanItem of(String id, long weight) {
        return new PlanItem(id, weight);
    }
}
