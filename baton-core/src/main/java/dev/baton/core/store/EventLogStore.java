package dev.baton.core.store;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A bounded, durable log of a group's cluster events (seed 002's {@code cluster_events} table): leaders elected and
 * lost, nodes joined and left, elections started, degraded periods. It is the history an operator reads after an
 * incident, so it lives in the store, not in any one node's memory.
 *
 * <p>The store stamps each event with its own clock and an id that increases in append order within the group, and
 * keeps at least the newest {@link #MIN_RETAINED} events per group, dropping older ones so the log cannot grow
 * without bound.
 */
public interface EventLogStore {

    /** Every store keeps at least this many of the newest events per group. */
    int MIN_RETAINED = 1_000;

    /** Appends one event. {@code data} holds small string values, e.g. the term. */
    CompletableFuture<Void> appendEvent(String group, String nodeId, String type, Map<String, String> data);

    /** The newest {@code limit} events of the group, newest first. */
    CompletableFuture<List<ClusterEvent>> recentEvents(String group, int limit);
}
