package dev.baton.work;

import java.util.Objects;

/**
 * Where a work cluster keeps its state and which channels it uses: seed 001's names, each after an optional prefix.
 * The maps are fenced maps of the election's group (so they are per group already); the channels are the store's
 * message bus (shared by every group on the store: every message also names its group).
 *
 * <table>
 *   <caption>Store maps and channels</caption>
 *   <tr><th>name</th><th>what</th></tr>
 *   <tr><td>{@code work_items} (configurable, no prefix)</td><td>the desired items subscribed through the cluster
 *       or {@code PUT /work/items/{id}}: item id -> {@link WorkItemJson}</td></tr>
 *   <tr><td>{@code worker:actual_subscriptions}</td><td>item id -> {@link ActualSubscription}</td></tr>
 *   <tr><td>{@code worker:assignments}</td><td>worker URL -> process id whose global listeners get its
 *       results</td></tr>
 *   <tr><td>{@code worker:connections}</td><td>worker URL -> {@link WorkerConnectionState}</td></tr>
 *   <tr><td>{@code worker:draining}</td><td>worker URL -> why it is being drained (Baton's addition; written by
 *       the leader, read by {@code getState})</td></tr>
 *   <tr><td>{@code worker:listeners}</td><td>process id -> its listener card (Baton's addition: which items it has
 *       listeners for, and whether it has global ones)</td></tr>
 *   <tr><td>channel {@code worker:slave:{processId}}</td><td>results, acknowledgements and answers to one
 *       process</td></tr>
 *   <tr><td>channel {@code worker:master:commands}</td><td>{@code regenerate_subscriptions} and requests to the
 *       leader</td></tr>
 * </table>
 *
 * @param prefix   put before every {@code worker:} name; default empty
 * @param itemsMap the fenced map of desired items; default {@value #DEFAULT_ITEMS_MAP}, the HTTP API's map
 */
public record StoreLayout(String prefix, String itemsMap) {

    /** The map the HTTP control plane keeps items in ({@code PUT /work/items/{id}}). */
    public static final String DEFAULT_ITEMS_MAP = "work_items";

    public StoreLayout {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(itemsMap, "itemsMap");
        if (itemsMap.isEmpty()) {
            throw new IllegalArgumentException("itemsMap must not be empty");
        }
    }

    /** No prefix, items in {@value #DEFAULT_ITEMS_MAP}. */
    public static StoreLayout defaults() {
        return new StoreLayout("", DEFAULT_ITEMS_MAP);
    }

    /** {@code worker:actual_subscriptions}. */
    public String actualMap() {
        return prefix + "worker:actual_subscriptions";
    }

    /** {@code worker:assignments}. */
    public String assignmentsMap() {
        return prefix + "worker:assignments";
    }

    /** {@code worker:connections}. */
    public String connectionsMap() {
        return prefix + "worker:connections";
    }

    /** {@code worker:draining}. */
    public String drainingMap() {
        return prefix + "worker:draining";
    }

    /** {@code worker:listeners}. */
    public String listenersMap() {
        return prefix + "worker:listeners";
    }

    /** {@code worker:master:commands}. */
    public String commandsChannel() {
        return prefix + "worker:master:commands";
    }

    /** {@code worker:slave:{processId}}. */
    public String processChannel(String processId) {
        return prefix + "worker:slave:" + processId;
    }
}
