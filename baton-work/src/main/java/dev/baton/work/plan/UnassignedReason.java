package dev.baton.work.plan;

/** Why a desired item is on no worker. */
public enum UnassignedReason {
    /** No online worker with a capacity above zero (seed 001: "No workers available for assignment"). */
    NO_WORKERS_AVAILABLE,
    /** Online workers exist and one of them could hold the item, but none has room left. */
    NO_CAPACITY,
    /** Weighted mode: the item's weight exceeds the capacity of every online worker, even an empty one. */
    ITEM_TOO_LARGE
}
