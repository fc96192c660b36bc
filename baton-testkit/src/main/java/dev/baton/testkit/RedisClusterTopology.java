package dev.baton.testkit;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A private Redis Cluster for tests: three masters (nodes 0 to 2, slots split evenly as {@code redis-cli --cluster
 * create} does) and three replicas (node {@code 3 + i} replicates master {@code i}), each {@code redis-server} with
 * {@code cluster-enabled yes} on a free loopback port in a temporary directory. Nodes consider a peer failing after
 * 1 s ({@code cluster-node-timeout 1000}) and a replica always stands for election
 * ({@code cluster-replica-validity-factor 0}), so a killed master is replaced within a few seconds. The cluster is
 * formed with {@code CLUSTER ADDSLOTS}, {@code MEET} and {@code REPLICATE} commands, so no {@code redis-cli} is needed
 * and the binary of {@link RedisServer#binary()} suffices.
 *
 * <p>Faults and changes: {@link #killNode} / {@link #stopNode} / {@link #pauseNode} then {@link #awaitFailover},
 * {@link #restartNode}, a manual failover to a replica ({@link #failover}), a replica that falls behind
 * ({@link #pauseReplication}), and moving a key's slot between masters ({@link #migrateSlot}, or step by step with
 * {@link #beginSlotMigration} to observe {@code ASK} redirections). Everything is stopped and deleted by
 * {@link #close()}, or at JVM exit if a test forgot. Thread-safe.
 */
public final class RedisClusterTopology implements AutoCloseable {

    private static final int MASTERS = 3;
    private static final int NODES = 2 * MASTERS;
    private static final int NODE_TIMEOUT_MILLIS = 1000;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final int MIGRATE_BATCH = 100;
    private static final String MIGRATE_TIMEOUT_MILLIS = "5000";
    /** Redis abandons a manual failover after 5 s; one not done by then is requested again. */
    private static final Duration MANUAL_FAILOVER_RETRY = Duration.ofSeconds(6);
    /** A password no master asks for: a replica that sends it fails its replication handshake and falls behind. */
    private static final String LAGGING_AUTH = "baton-testkit-replication-paused";

    private final Path dir;
    private final List<RedisNodeProcess> nodes = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    /** The slots each node served when it was last seen going down by {@link #down}, for {@link #awaitFailover}. */
    private final BitSet[] slotsWhenDown = new BitSet[NODES];
    private boolean closed;

    private RedisClusterTopology(Path dir) {
        this.dir = dir;
    }

    /** Starts six nodes, forms the cluster and waits until every node reports {@code cluster_state:ok}. */
    public static RedisClusterTopology start() {
        Path binary = RedisServer.binary();
        return TopologyLifecycle.start("the Redis Cluster", "baton-redis-cluster-", RedisClusterTopology::new,
                topology -> topology.launch(binary), failure -> false);
    }

    /** All six nodes' addresses, node 0 first: seeds for a cluster client. */
    public List<InetSocketAddress> seedAddresses() {
        return nodes.stream().map(RedisNodeProcess::address).toList();
    }

    /** {@code redis://127.0.0.1:PORT} for each node, node 0 first. */
    public List<String> seedUris() {
        return nodes.stream().map(n -> "redis://" + RedisNodeProcess.HOST + ":" + n.port()).toList();
    }

    /** The hash slot of {@code key} ({@code CLUSTER KEYSLOT}, hash tags included). */
    public int slotOf(String key) {
        return ((Long) anyRunning().call("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /**
     * The node that serves {@code key}'s slot now: the running master that claims it.
     *
     * @throws IllegalStateException if no running node claims it (its master is down and not yet replaced)
     */
    public int masterOf(String key) {
        int slot = slotOf(key);
        return runningNodes().filter(i -> {
            ClusterNodesView.Node self = view(i).myself();
            return self.isMaster() && self.serves(slot);
        }).findFirst().orElseThrow(() -> new IllegalStateException("no running node serves slot " + slot
                + " of key '" + key + "'"));
    }

    /** Whether node {@code node} runs and is a master now (it may have been promoted, or demoted after a restart). */
    public boolean isMaster(int node) {
        return node(node).isRunning() && view(node).myself().isMaster();
    }

    /** Whether node {@code node}'s process is alive. */
    public boolean isNodeRunning(int node) {
        return node(node).isRunning();
    }

    /** Kills node {@code node} with SIGKILL, as a crash. No-op if it is not running. */
    public void killNode(int node) {
        down(node).kill();
    }

    /** Stops node {@code node} gracefully (SIGTERM). No-op if it is not running. */
    public void stopNode(int node) {
        down(node).stop();
    }

    /** Freezes node {@code node} with SIGSTOP: the others see it fail after 1 s while it still holds its port. */
    public void pauseNode(int node) {
        down(node).pause();
    }

    /** Lets a {@link #pauseNode paused} node run again; a replaced master then learns it lost its slots. */
    public void resumeNode(int node) {
        node(node).resume();
    }

    /**
     * Starts node {@code node} again on its port, empty, with its cluster identity ({@code nodes.conf}): a former
     * master that was replaced rejoins as a replica of its replacement.
     */
    public void restartNode(int node) {
        requireOpen();
        node(node).restart();
    }

    /**
     * Waits (up to 30 s) until the slots that master {@code failedMaster} served when it was killed, stopped or paused
     * here are served by a running replacement, and every running node (paused ones aside) says so and reports
     * {@code cluster_state:ok}.
     *
     * @return the replacement's node number
     * @throws IllegalArgumentException if the node served no slots when it went down (or never went down)
     */
    public int awaitFailover(int failedMaster) {
        node(failedMaster);
        BitSet slots;
        synchronized (this) {
            slots = slotsWhenDown[failedMaster];
        }
        if (slots == null || slots.isEmpty()) {
            throw new IllegalArgumentException("node " + failedMaster + " served no slots when it went down");
        }
        int slot = slots.nextSetBit(0);
        int[] replacement = {-1};
        TopologyAwait.until("another node to serve the slots of node " + failedMaster, SETTLE_TIMEOUT, () -> {
            replacement[0] = runningNodes().filter(i -> i != failedMaster && view(i).myself().isMaster()
                    && view(i).myself().serves(slot)).findFirst().orElse(-1);
            return replacement[0] >= 0 && isSettled(slot, ids.get(replacement[0]));
        }, this::describe);
        return replacement[0];
    }

    /**
     * A running replica of master {@code master}, by the replicas' own view (node {@code master + 3} until a
     * failover changed the roles).
     *
     * @throws IllegalStateException if none runs
     */
    public int replicaOf(int master) {
        node(master);
        String masterId = ids.get(master);
        return runningNodes().filter(i -> i != master).filter(i -> {
            ClusterNodesView.Node self = view(i).myself();
            return !self.isMaster() && masterId.equals(self.masterId());
        }).findFirst().orElseThrow(() -> new IllegalStateException("master " + master + " has no running replica"));
    }

    /**
     * A manual failover ({@code CLUSTER FAILOVER} on replica {@code replica}): the replica and its master agree on the
     * replication offset first, so no acknowledged write is lost; the replica then serves its master's slots and the
     * master becomes its replica. Waits until every running node agrees. Redis abandons a manual failover that did not
     * complete within 5 s (the masters may refuse their votes, for one when they voted for a failover of the same
     * master moments before), so it is requested again every 6 s until it completes.
     *
     * @return the former master's node number
     * @throws IllegalArgumentException if {@code replica} is not a replica
     */
    public int failover(int replica) {
        ClusterNodesView.Node self = view(replica).myself();
        if (self.isMaster()) {
            throw new IllegalArgumentException("node " + replica + " is a master, not a replica");
        }
        int master = ids.indexOf(self.masterId());
        int slot = view(master).myself().slots().nextSetBit(0);
        node(replica).call("CLUSTER", "FAILOVER");
        long[] requested = {System.nanoTime()};
        TopologyAwait.until("node " + replica + " to take over the slots of node " + master, SETTLE_TIMEOUT, () -> {
            if (isMaster(replica)) {
                return isSettled(slot, ids.get(replica));
            }
            if (System.nanoTime() - requested[0] > MANUAL_FAILOVER_RETRY.toNanos()) {
                node(replica).call("CLUSTER", "FAILOVER");
                requested[0] = System.nanoTime();
            }
            return false;
        }, this::describe);
        return master;
    }

    /**
     * Waits (up to 30 s) until every replica of master {@code master} acknowledged all of its writes so far (each
     * replica's offset in the master's {@code INFO replication} equals the master's offset).
     */
    public void awaitReplicated(int master) {
        TopologyAwait.until("the replicas of node " + master + " to catch up", SETTLE_TIMEOUT, () -> {
            Map<String, String> info = node(master).info("replication");
            String offset = info.get("master_repl_offset");
            List<String> replicas = info.entrySet().stream().filter(e -> e.getKey().matches("slave\\d+"))
                    .map(Map.Entry::getValue).toList();
            return !replicas.isEmpty() && replicas.stream().allMatch(r -> r.contains("offset=" + offset + ","));
        }, this::describe);
    }

    /**
     * Waits (up to 30 s) until node {@code replica} is a replica whose link to its master is up and whose initial
     * synchronisation is over: after a {@link #restartNode restart}, before it can be promoted with the data.
     */
    public void awaitReplicaInSync(int replica) {
        TopologyAwait.until("node " + replica + " to replicate in sync", SETTLE_TIMEOUT, () -> {
            Map<String, String> info = node(replica).info("replication");
            return "slave".equals(info.get("role")) && "up".equals(info.get("master_link_status"))
                    && "0".equals(info.get("master_sync_in_progress"));
        }, this::describe);
    }

    /**
     * Cuts replica {@code replica} off its master's replication stream while it keeps answering: it falls behind,
     * as a lagging replica does, and may still be promoted (replicas always stand for election here). Undo with
     * {@link #resumeReplication}.
     *
     * @throws IllegalStateException if the node is not a replica
     */
    public void pauseReplication(int replica) {
        RedisNodeProcess node = node(replica);
        if (view(replica).myself().isMaster()) {
            throw new IllegalStateException(node + " is not a replica");
        }
        node.call("CONFIG", "SET", "masterauth", LAGGING_AUTH);
        node.call("CLIENT", "KILL", "TYPE", "master");
    }

    /** Lets a replica {@link #pauseReplication paused} earlier reconnect to its master (Redis retries every second). */
    public void resumeReplication(int replica) {
        node(replica).call("CONFIG", "SET", "masterauth", "");
    }

    /**
     * Moves {@code key}'s slot, with every key in it, from the master serving it to master {@code target}, as
     * {@code redis-cli --cluster reshard} does ({@code SETSLOT IMPORTING/MIGRATING}, {@code MIGRATE},
     * {@code SETSLOT NODE}), and waits until every running node agrees that {@code target} serves it.
     *
     * @throws IllegalArgumentException if {@code target} is not a running master or already serves the slot
     */
    public void migrateSlot(String key, int target) {
        SlotMigration migration = beginSlotMigration(key, target);
        migration.moveKeys();
        migration.finish();
    }

    /**
     * Starts moving {@code key}'s slot to master {@code target} and stops there: the source answers {@code -ASK} for
     * keys it no longer holds, the target accepts them after {@code ASKING}. Continue with
     * {@link SlotMigration#moveKeys()} and {@link SlotMigration#finish()}.
     *
     * @throws IllegalArgumentException if {@code target} is not a running master or already serves the slot
     */
    public SlotMigration beginSlotMigration(String key, int target) {
        int slot = slotOf(key);
        int source = masterOf(key);
        if (!isMaster(target)) {
            throw new IllegalArgumentException("node " + target + " is not a running master");
        }
        if (source == target) {
            throw new IllegalArgumentException("node " + target + " already serves slot " + slot);
        }
        String s = Integer.toString(slot);
        node(target).call("CLUSTER", "SETSLOT", s, "IMPORTING", ids.get(source));
        node(source).call("CLUSTER", "SETSLOT", s, "MIGRATING", ids.get(target));
        return new SlotMigration(slot, source, target);
    }

    /**
     * Runs one command on node {@code node} and returns its reply: a {@link String} (status or bulk), a {@link Long},
     * a {@link List} for an array, or {@code null}. No redirection is followed: a key on another node gets
     * {@code MOVED} as an {@link IllegalStateException}.
     */
    public Object command(int node, String... args) {
        return node(node).call(args);
    }

    /** Stops every node and deletes the directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        TopologyLifecycle.stopAndDelete(this, dir, () -> nodes.forEach(RedisNodeProcess::stop));
    }

    @Override
    public String toString() {
        return "RedisClusterTopology" + nodes;
    }

    /**
     * A slot on its way from one master to another, from {@link #beginSlotMigration}: the source is
     * {@code MIGRATING}, the target {@code IMPORTING}.
     */
    public final class SlotMigration {

        private final int slot;
        private final int source;
        private final int target;

        private SlotMigration(int slot, int source, int target) {
            this.slot = slot;
            this.source = source;
            this.target = target;
        }

        /** The slot being moved. */
        public int slot() {
            return slot;
        }

        /** The node it moves from. */
        public int source() {
            return source;
        }

        /** The node it moves to. */
        public int target() {
            return target;
        }

        /** Moves every key the source holds in the slot now to the target ({@code MIGRATE ... KEYS}). */
        public void moveKeys() {
            RedisNodeProcess from = node(source);
            long batches = (Long) from.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)) / MIGRATE_BATCH + 1;
            for (long i = 0; i < batches; i++) {
                List<?> keys = (List<?>) from.call("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot),
                        Integer.toString(MIGRATE_BATCH));
                if (keys.isEmpty()) {
                    return;
                }
                List<String> migrate = new ArrayList<>(List.of("MIGRATE", RedisNodeProcess.HOST,
                        Integer.toString(node(target).port()), "", "0", MIGRATE_TIMEOUT_MILLIS, "KEYS"));
                keys.forEach(k -> migrate.add(String.valueOf(k)));
                from.call(migrate.toArray(String[]::new));
            }
        }

        /**
         * Assigns the slot to the target on the target, the source and every other running master
         * ({@code SETSLOT NODE}) and waits until every running node agrees. Keys written to the source since
         * {@link #moveKeys()} would be stranded, so call that first.
         */
        public void finish() {
            String s = Integer.toString(slot);
            String targetId = ids.get(target);
            node(target).call("CLUSTER", "SETSLOT", s, "NODE", targetId);
            node(source).call("CLUSTER", "SETSLOT", s, "NODE", targetId);
            runningNodes().filter(i -> i != source && i != target && isMaster(i))
                    .forEach(i -> node(i).call("CLUSTER", "SETSLOT", s, "NODE", targetId));
            TopologyAwait.until("every node to agree that node " + target + " serves slot " + slot, SETTLE_TIMEOUT,
                    () -> isSettled(slot, targetId), RedisClusterTopology.this::describe);
        }
    }

    private void launch(Path binary) {
        for (int i = 0; i < NODES; i++) {
            Path nodeDir = TopologyLifecycle.subdirectory(dir, "node-" + i);
            RedisNodeProcess node = new RedisNodeProcess((i < MASTERS ? "master " : "replica ") + i, binary, nodeDir,
                    List.of());
            nodes.add(node);
            node.start(port -> {
                List<String> lines = RedisNodeProcess.baseConfig(port, nodeDir);
                lines.add("cluster-enabled yes");
                lines.add("cluster-config-file nodes.conf");
                lines.add("cluster-node-timeout " + NODE_TIMEOUT_MILLIS);
                lines.add("cluster-replica-validity-factor 0");
                return lines;
            });
            ids.add((String) node.call("CLUSTER", "MYID"));
            // Distinct epochs before the nodes meet, so they need no collision rounds to tell each other apart.
            node.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (int m = 0; m < MASTERS; m++) {
            int from = m * ClusterNodesView.SLOTS / MASTERS;
            int to = (m + 1) * ClusterNodesView.SLOTS / MASTERS;
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            IntStream.range(from, to).forEach(slot -> addSlots.add(Integer.toString(slot)));
            nodes.get(m).call(addSlots.toArray(String[]::new));
        }
        for (int i = 1; i < NODES; i++) {
            nodes.get(0).call("CLUSTER", "MEET", RedisNodeProcess.HOST, Integer.toString(nodes.get(i).port()));
        }
        TopologyAwait.until("every node to know the other five", SETTLE_TIMEOUT,
                () -> IntStream.range(0, NODES).allMatch(i -> view(i).knowsAll(NODES)), this::describe);
        for (int r = MASTERS; r < NODES; r++) {
            nodes.get(r).call("CLUSTER", "REPLICATE", ids.get(r - MASTERS));
        }
        TopologyAwait.until("the cluster to be ready with its replicas in sync", SETTLE_TIMEOUT,
                () -> IntStream.range(0, NODES).allMatch(i -> "ok".equals(clusterInfo(i)))
                        && IntStream.range(MASTERS, NODES).allMatch(r -> "up".equals(
                                nodes.get(r).info("replication").get("master_link_status")))
                        && IntStream.range(0, NODES).allMatch(i -> IntStream.range(0, MASTERS)
                                .allMatch(m -> view(i).ownerOf(m * ClusterNodesView.SLOTS / MASTERS)
                                        .map(o -> o.id().equals(ids.get(m))).orElse(false))),
                this::describe);
    }

    /** Every running node reports {@code cluster_state:ok} and sees {@code ownerId} as the server of {@code slot}. */
    private boolean isSettled(int slot, String ownerId) {
        return runningNodes().allMatch(i -> "ok".equals(clusterInfo(i))
                && view(i).ownerOf(slot).map(o -> o.id().equals(ownerId)).orElse(false));
    }

    /** Records what a node serves before it goes down, for {@link #awaitFailover}. */
    private synchronized RedisNodeProcess down(int node) {
        RedisNodeProcess process = node(node);
        if (process.isRunning()) {
            try {
                ClusterNodesView.Node self = view(node).myself();
                slotsWhenDown[node] = self.isMaster() ? self.slots() : new BitSet();
            } catch (IllegalStateException e) {
                // Paused or unresponsive already: keep what it served when it last went down.
            }
        }
        return process;
    }

    private ClusterNodesView view(int node) {
        return ClusterNodesView.parse(String.valueOf(node(node).call("CLUSTER", "NODES")));
    }

    private String clusterInfo(int node) {
        for (String line : String.valueOf(node(node).call("CLUSTER", "INFO")).split("\r\n")) {
            if (line.startsWith("cluster_state:")) {
                return line.substring("cluster_state:".length()).trim();
            }
        }
        return "unknown";
    }

    private IntStream runningNodes() {
        return IntStream.range(0, nodes.size()).filter(i -> nodes.get(i).isRunning() && !nodes.get(i).isPaused());
    }

    private RedisNodeProcess anyRunning() {
        return runningNodes().mapToObj(nodes::get).findFirst()
                .orElseThrow(() -> new IllegalStateException("no cluster node is running"));
    }

    /** Each running node's state and own line, for timeout messages. */
    private String describe() {
        List<String> states = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            try {
                ClusterNodesView.Node self = view(i).myself();
                states.add(i + ": " + clusterInfo(i) + " " + self.flags() + " slots=" + self.slots().cardinality());
            } catch (IllegalStateException e) {
                states.add(i + ": " + (nodes.get(i).isRunning() ? "not answering" : "down"));
            }
        }
        return "nodes " + states;
    }

    private RedisNodeProcess node(int node) {
        if (node < 0 || node >= nodes.size()) {
            throw new IllegalArgumentException("node must be between 0 and " + (NODES - 1) + ", was " + node);
        }
        return nodes.get(node);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("RedisClusterTopology is closed");
        }
    }
}
