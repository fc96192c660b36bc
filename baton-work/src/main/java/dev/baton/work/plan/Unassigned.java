package dev.baton.work.plan;

import java.util.Objects;

/**
 * A desired item the plan leaves on no worker.
 *
 * @param item the item's id
 * @param reason why
 */
public record Unassigned(String item, UnassignedReason reason) {

    public Unassigned {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(reason, "reason");
    }
}
