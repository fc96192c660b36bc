package dev.baton.work.internal.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.work.ActualSubscription;
import dev.baton.work.StoreLayout;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterState;
import dev.baton.work.WorkerConnectionState;
import dev.baton.core.Membership;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.FencedMapStore;
import dev.baton.core.store.FencedValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the work cluster's state from the store (the registry, {@code worker:connections},
 * {@code worker:assignments}, {@code worker:actual_subscriptions}, {@code worker:draining}), in parallel: what {@link WorkCluster#getState()}
 * shows on every process. Unreadable entries are left out.
 */
final class StateReader {

    private static final Logger log = LoggerFactory.getLogger(StateReader.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The state read, before the reading process adds who it is. */
    record Read(List<WorkerConnectionState> workers, List<WorkClusterState.Slave> slaves,
                Map<String, String> assignments, List<ActualSubscription> items, Map<String, String> draining) {

        WorkClusterState as(String processId, boolean leading) {
            return new WorkClusterState(processId, leading, processId, workers.size(), slaves.size(), workers,
                    slaves, assignments, items, draining);
        }
    }

    private StateReader() {
    }

    static CompletableFuture<Read> read(FencedMapStore store, Membership membership, String group,
            StoreLayout layout, List<String> workerUrls) {
        CompletableFuture<List<NodeInfo>> members = membership.members();
        CompletableFuture<SortedMap<String, FencedValue>> connections = store.mapEntries(group,
                layout.connectionsMap());
        CompletableFuture<SortedMap<String, FencedValue>> assignments = store.mapEntries(group,
                layout.assignmentsMap());
        CompletableFuture<SortedMap<String, FencedValue>> actual = store.mapEntries(group, layout.actualMap());
        CompletableFuture<SortedMap<String, FencedValue>> drains = store.mapEntries(group, layout.drainingMap());
        return CompletableFuture.allOf(members, connections, assignments, actual, drains).thenApply(done -> {
            Map<String, String> assigned = new TreeMap<>();
            assignments.join().forEach((w, v) -> assigned.put(w, new String(v.value(), StandardCharsets.UTF_8)));
            List<WorkerConnectionState> workers = new ArrayList<>();
            for (String url : workerUrls) {
                workers.add(connection(url, connections.join().get(url)));
            }
            List<WorkClusterState.Slave> slaves = new ArrayList<>();
            for (NodeInfo m : members.join()) {
                int workload = (int) assigned.values().stream().filter(m.id()::equals).count();
                slaves.add(new WorkClusterState.Slave(m.id(), m.id(), true, workload, m.lastSeen(),
                        m.role() == Role.LEADER, m.capabilities()));
            }
            List<ActualSubscription> items = new ArrayList<>();
            actual.join().forEach((id, v) -> {
                try {
                    items.add(ActualSubscription.fromJson(v.value()));
                } catch (IllegalArgumentException e) {
                    log.debug("unreadable actual subscription {}: {}", id, e.getMessage());
                }
            });
            Map<String, String> draining = new TreeMap<>();
            drains.join().forEach((url, v) -> draining.put(url, drainReason(v.value())));
            return new Read(workers, slaves, assigned, items, draining);
        });
    }

    /** The reason of a stored drain ({@code {"reason": …}}), or the raw text if it is not such an object. */
    private static String drainReason(byte[] value) {
        try {
            return JSON.readTree(value).path("reason").asText("");
        } catch (java.io.IOException e) {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    private static WorkerConnectionState connection(String url, FencedValue value) {
        if (value != null) {
            try {
                return WorkerConnectionState.fromJson(value.value());
            } catch (IllegalArgumentException e) {
                log.debug("unreadable connection state of {}: {}", url, e.getMessage());
            }
        }
        return WorkerConnectionState.unknown(url);
    }
}
