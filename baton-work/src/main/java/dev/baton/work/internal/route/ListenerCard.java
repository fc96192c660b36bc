package dev.baton.work.internal.route;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one process listens to: the items it has per-item detection listeners for, and whether it has global ones.
 * Each process announces its card to the leader (on every change, on every new leader, and periodically), and the
 * leader keeps the cards in the store ({@code worker:listeners}) so that a new leader routes at once.
 *
 * <p>{@code incarnation} is random per process start and {@code version} counts changes within it: a card replaces
 * the stored one if it comes from another incarnation or has a higher version, so a late duplicate never rolls a
 * card back.
 *
 * @param processId   the process (its election node id)
 * @param incarnation random per start of the process's work cluster
 * @param version     increases with every change of {@code items} or {@code global}
 * @param items       item ids with at least one per-item listener on the process, sorted
 * @param global      whether the process has at least one global listener
 */
@JsonPropertyOrder({"processId", "incarnation", "version", "global", "items"})
public record ListenerCard(@Required String processId, @Required long incarnation, @Required long version,
                           @Required @JsonSerialize(converter = BusJson.SortedItems.class) Set<String> items,
                           @Required boolean global) {

    public ListenerCard {
        Objects.requireNonNull(processId, "processId");
        items = Set.copyOf(new TreeSet<>(items));
    }

    /** Whether this card should replace {@code older} (the same process's card known before). */
    public boolean supersedes(ListenerCard older) {
        return older == null || incarnation != older.incarnation || version > older.version;
    }
}
