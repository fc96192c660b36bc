package dev.baton.work.internal.reconcile;

import dev.baton.work.worker.WorkerTransport;
import java.util.List;
import java.util.Objects;

/**
 * The workers a leader connects to and how.
 *
 * @param urls      every worker's WebSocket URL, in configured order
 * @param transport opens the connections
 */
public record WorkerFleet(List<String> urls, WorkerTransport transport) {

    public WorkerFleet {
        urls = List.copyOf(urls);
        Objects.requireNonNull(transport, "transport");
    }
}
