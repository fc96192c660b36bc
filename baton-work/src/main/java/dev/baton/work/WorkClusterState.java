package dev.baton.work;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A snapshot of the work cluster as one process sees it: seed 001's {@code DetectorClusterState}, plus every item's
 * assigned worker and status. Read from the store, so every process (leader or not) gives the same answer; the
 * worker entries are as fresh as the leader's last write (at most {@code connectionStateInterval} old while reports
 * arrive).
 *
 * @param processId    this process
 * @param isMaster     whether this process leads (holds the worker connections)
 * @param slaveId      this process's id as a routing target (the same as {@code processId}, as in the seed)
 * @param totalWorkers the number of configured workers
 * @param totalSlaves  the number of live processes in the group
 * @param workers      every configured worker's connection state (seed {@code WorkerConnectionState}), by URL
 * @param slaves       every live process (seed {@code SlaveState}), by id
 * @param assignments  worker URL -> the process whose global listeners get its results
 * @param items        every recorded item: where it runs and its status (seed {@code ActualCameraSubscription}), by id
 * @param draining     the workers being drained (Baton's addition) -> why; their items are moving elsewhere
 */
public record WorkClusterState(String processId, boolean isMaster, String slaveId, int totalWorkers,
                               int totalSlaves, List<WorkerConnectionState> workers, List<Slave> slaves,
                               Map<String, String> assignments, List<ActualSubscription> items,
                               Map<String, String> draining) {

    public WorkClusterState {
        Objects.requireNonNull(processId, "processId");
        workers = List.copyOf(workers);
        slaves = List.copyOf(slaves);
        assignments = Map.copyOf(assignments);
        items = List.copyOf(items);
        draining = Map.copyOf(draining);
    }

    /**
     * One live process: seed 001's {@code SlaveState}.
     *
     * @param workload       how many workers' results its global listeners get ({@code worker:assignments})
     * @param lastSeen       its last registry heartbeat
     * @param leader         whether it leads
     * @param capabilities   its registry capabilities
     */
    public record Slave(String slaveId, String processId, boolean online, int workload, Instant lastSeen,
                        boolean leader, dev.baton.core.Capabilities capabilities) {
    }

    /** The item with this id, if recorded. */
    public java.util.Optional<ActualSubscription> item(String id) {
        return items.stream().filter(i -> i.subscriptionIdentifier().equals(id)).findFirst();
    }

    /** Item id -> the worker it is assigned to, for the items on a worker. */
    public Map<String, String> itemWorkers() {
        Map<String, String> map = new TreeMap<>();
        for (ActualSubscription item : items) {
            if (item.assignedWorkerUrl() != null) {
                map.put(item.subscriptionIdentifier(), item.assignedWorkerUrl());
            }
        }
        return map;
    }

    /**
     * The state as JSON with the seed's field names: {@code processId}, {@code isMaster}, {@code slaveId},
     * {@code totalWorkers}, {@code totalSlaves}, {@code workers} (each a {@link WorkerConnectionState}),
     * {@code slaves} ({@code slaveId}, {@code processId}, {@code online}, {@code workload}, {@code lastSeen},
     * {@code isMaster}, {@code capabilities}), {@code assignments} (worker URL -> process id) and {@code items} (each
     * an {@link ActualSubscription}); and {@code draining} (worker URL -> why it is being drained).
     */
    public ObjectNode toJson() {
        ObjectNode root = StoreJson.MAPPER.createObjectNode();
        root.put("processId", processId);
        root.put("isMaster", isMaster);
        root.put("slaveId", slaveId);
        root.put("totalWorkers", totalWorkers);
        root.put("totalSlaves", totalSlaves);
        ArrayNode w = root.putArray("workers");
        workers.forEach(worker -> w.add(worker.toTree()));
        ArrayNode s = root.putArray("slaves");
        for (Slave slave : slaves) {
            ObjectNode node = s.addObject();
            node.put("slaveId", slave.slaveId());
            node.put("processId", slave.processId());
            node.put("online", slave.online());
            node.put("workload", slave.workload());
            StoreJson.put(node, "lastSeen", slave.lastSeen());
            node.put("isMaster", slave.leader());
            if (slave.capabilities() != null) {
                ObjectNode c = node.putObject("capabilities");
                c.put("canProcessDetections", slave.capabilities().canProcessDetections());
                c.put("maxSubscriptions", slave.capabilities().maxSubscriptions());
                c.put("preferredWorkload", slave.capabilities().preferredWorkload());
            }
        }
        ObjectNode a = root.putObject("assignments");
        new TreeMap<>(assignments).forEach(a::put);
        ArrayNode i = root.putArray("items");
        items.forEach(item -> i.add(item.toTree()));
        ObjectNode d = root.putObject("draining");
        new TreeMap<>(draining).forEach(d::put);
        return root;
    }
}
