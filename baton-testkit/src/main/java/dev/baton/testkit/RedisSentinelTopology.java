package dev.baton.testkit;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A private Redis Sentinel deployment for tests: one primary and two replicas ({@code replicaof}) watched by three
 * Sentinels ({@code redis-server --sentinel}, quorum 2) under the master name {@link #MASTER_NAME}, each process on a
 * free loopback port in a temporary directory. By default Sentinels consider a node down after 1 s without an answer
 * ({@code down-after-milliseconds 1000}), so a killed primary is replaced within a few seconds; {@link #builder()}
 * changes that, the failover timeout, and whether the data nodes refuse writes without a replica
 * ({@code min-replicas-to-write}).
 *
 * <p>Data nodes are numbered 0 to 2 in start order (node 0 starts as the primary; after a failover any node may be),
 * Sentinels 0 to 2. Faults: {@link #killNode}, {@link #stopNode}, {@link #restartNode}, {@link #pauseNode} (hung),
 * {@link #pauseReplication} (a replica that answers but falls behind), {@link #failover()} (a forced switch) and
 * {@link #killSentinel}. Uses the same binary as {@link RedisServer#binary()} (Sentinel is a mode of
 * {@code redis-server}, {@code redis-sentinel} is the same program). Everything is stopped and deleted by
 * {@link #close()}, or at JVM exit if a test forgot. Thread-safe.
 *
 * <pre>{@code
 * try (RedisSentinelTopology redis = RedisSentinelTopology.start()) {
 *     RedisURI uri = RedisURI.create(redis.sentinelUri());
 *     ...
 *     InetSocketAddress next = redis.failover();
 * }
 * }</pre>
 */
public final class RedisSentinelTopology implements AutoCloseable {

    /** The name the Sentinels monitor the primary under. */
    public static final String MASTER_NAME = "baton-primary";

    private static final int NODES = 3;
    private static final int SENTINELS = 3;
    private static final int QUORUM = 2;
    private static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(1);
    private static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final String LAGGING_AUTH = "baton-testkit-replication-paused";

    private final Path dir;
    private final Settings settings;
    private final List<RedisNodeProcess> nodes = new ArrayList<>();
    private final List<RedisNodeProcess> sentinels = new ArrayList<>();
    private boolean closed;

    private RedisSentinelTopology(Path dir, Settings settings) {
        this.dir = dir;
        this.settings = settings;
    }

    /**
     * Starts the primary, then the replicas, waits until both replicate, starts the Sentinels and waits until each
     * of them knows both replicas and both other Sentinels, so a failover can start at once. The Sentinels' timings
     * are the defaults of {@link #builder()}.
     */
    public static RedisSentinelTopology start() {
        return builder().start();
    }

    /** A builder for a topology with other Sentinel timings, or data nodes that need a replica to take writes. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The Sentinels' {@code failover-timeout}: among other things, a Sentinel does not try a failover of the same
     * primary again within twice this.
     */
    public Duration failoverTimeout() {
        return settings.failoverTimeout();
    }

    private static RedisSentinelTopology start(Settings settings) {
        Path binary = RedisServer.binary();
        return TopologyLifecycle.start("the Sentinel topology", "baton-redis-sentinel-",
                dir -> new RedisSentinelTopology(dir, settings), topology -> topology.launch(binary), failure -> false);
    }

    /** {@link #MASTER_NAME}. */
    public String masterName() {
        return MASTER_NAME;
    }

    /** The Sentinels' addresses, Sentinel 0 first. */
    public List<InetSocketAddress> sentinelAddresses() {
        return sentinels.stream().map(RedisNodeProcess::address).toList();
    }

    /**
     * {@code redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3?sentinelMasterId=baton-primary}, the form
     * Lettuce's {@code RedisURI.create} takes.
     */
    public String sentinelUri() {
        return "redis-sentinel://" + sentinels.stream().map(s -> RedisNodeProcess.HOST + ":" + s.port())
                .collect(Collectors.joining(",")) + "?sentinelMasterId=" + MASTER_NAME;
    }

    /** The data nodes' addresses, node 0 (the first primary) first. */
    public List<InetSocketAddress> nodeAddresses() {
        return nodes.stream().map(RedisNodeProcess::address).toList();
    }

    /**
     * The primary as the Sentinels report it ({@code SENTINEL get-master-addr-by-name}): the address that a majority
     * of all three Sentinels names.
     *
     * @throws IllegalStateException if no majority of the Sentinels answers with the same address
     */
    public InetSocketAddress primary() {
        Map<InetSocketAddress, Integer> votes = new HashMap<>();
        for (InetSocketAddress reported : reportedPrimaries().values()) {
            if (votes.merge(reported, 1, Integer::sum) >= QUORUM) {
                return reported;
            }
        }
        throw new IllegalStateException("no majority of the Sentinels agrees on a primary: " + reportedPrimaries());
    }

    /** The number (0 to 2) of the data node that is the {@link #primary()}. */
    public int primaryNode() {
        return nodeAt(primary());
    }

    /** Kills data node {@code node} with SIGKILL, as a crash. No-op if it is not running. */
    public void killNode(int node) {
        node(node).kill();
    }

    /** Stops data node {@code node} gracefully (SIGTERM). No-op if it is not running. */
    public void stopNode(int node) {
        node(node).stop();
    }

    /**
     * Starts data node {@code node} again on its port, empty (no persistence), with the configuration the Sentinels
     * last wrote for it: a restarted former primary comes back as a primary until the Sentinels turn it into a replica
     * of the current one, as in production.
     */
    public void restartNode(int node) {
        requireOpen();
        node(node).restart();
    }

    /** Freezes data node {@code node} with SIGSTOP (a hung server that still accepts connections). */
    public void pauseNode(int node) {
        node(node).pause();
    }

    /** Lets a {@link #pauseNode paused} data node run again (SIGCONT). */
    public void resumeNode(int node) {
        node(node).resume();
    }

    /** Whether data node {@code node}'s process is alive. */
    public boolean isNodeRunning(int node) {
        return node(node).isRunning();
    }

    /**
     * Makes replica {@code node} fall behind while it stays up: its link to the primary is cut and it cannot log in
     * again (it is given a replication password the primary does not have), so it applies none of the primary's
     * writes, yet answers reads, {@code PING} and {@code INFO}, and the Sentinels see a healthy replica whose link is
     * down. It stays eligible for promotion for about ten times {@code down-after-milliseconds}, but a Sentinel
     * prefers the replica that replicated more. {@link #resumeReplication} lets it catch up.
     *
     * @throws IllegalStateException if the node is not a replica now
     */
    public void pauseReplication(int node) {
        RedisNodeProcess replica = node(node);
        String role = replica.info("replication").get("role");
        if (!"slave".equals(role)) {
            throw new IllegalStateException(replica + " is not a replica (role " + role + ")");
        }
        replica.call("CONFIG", "SET", "masterauth", LAGGING_AUTH);
        replica.call("CLIENT", "KILL", "TYPE", "master");
    }

    /**
     * Lets a replica {@link #pauseReplication paused} earlier reconnect (Redis retries every second) and catch up,
     * by a partial resync when the primary still has the missing writes in its backlog.
     */
    public void resumeReplication(int node) {
        RedisNodeProcess replica = node(node);
        replica.call("CONFIG", "SET", "masterauth", "");
        // A Sentinel that reconfigured the replica meanwhile wrote the password into its file; a restart must not
        // bring the lag back.
        replica.call("CONFIG", "REWRITE");
    }

    /** Kills Sentinel {@code sentinel} with SIGKILL. No-op if it is not running. */
    public void killSentinel(int sentinel) {
        sentinel(sentinel).kill();
    }

    /** Starts Sentinel {@code sentinel} again on its port; it remembers the topology it had written to its file. */
    public void restartSentinel(int sentinel) {
        requireOpen();
        sentinel(sentinel).restart();
    }

    /**
     * Forces a failover ({@code SENTINEL FAILOVER baton-primary} on the first running Sentinel, no agreement needed)
     * and waits until every running Sentinel names the new primary and that node says it is one.
     *
     * @return the new primary's address
     * @throws IllegalStateException if no Sentinel runs, the Sentinel refuses (e.g. no replica can be promoted), or
     *                               the switch does not complete within 30 s
     */
    public InetSocketAddress failover() {
        InetSocketAddress previous = primary();
        RedisNodeProcess sentinel = sentinels.stream().filter(RedisNodeProcess::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("no Sentinel is running"));
        sentinel.call("SENTINEL", "FAILOVER", MASTER_NAME);
        return awaitNewPrimary(previous);
    }

    /**
     * Waits (up to 30 s) until every running Sentinel names the same primary, other than {@code previous}, and that
     * node runs and reports {@code role:master}: the end of a failover, forced or after {@link #killNode} of the
     * primary.
     *
     * @return the new primary's address
     */
    public InetSocketAddress awaitNewPrimary(InetSocketAddress previous) {
        Objects.requireNonNull(previous, "previous");
        InetSocketAddress[] agreed = new InetSocketAddress[1];
        TopologyAwait.until("the Sentinels to agree on a primary other than " + previous, SETTLE_TIMEOUT, () -> {
            Map<Integer, InetSocketAddress> reported = reportedPrimaries();
            long running = sentinels.stream().filter(RedisNodeProcess::isRunning).count();
            if (running == 0 || reported.size() < running || reported.values().stream().distinct().count() != 1) {
                return false;
            }
            InetSocketAddress candidate = reported.values().iterator().next();
            if (candidate.equals(previous)) {
                return false;
            }
            RedisNodeProcess node = node(nodeAt(candidate));
            agreed[0] = candidate;
            return node.isRunning() && "master".equals(node.info("replication").get("role"));
        }, () -> "Sentinels report " + reportedPrimaries());
        return agreed[0];
    }

    /**
     * Waits (up to 30 s) until every running data node other than the {@link #primary()} replicates from it with its
     * link up, e.g. after a failover, before reading a write from a replica. The replicas the failover reconfigured
     * follow at once; a former primary that stayed up (a forced failover) is turned into a replica only when the
     * Sentinels next poll it, which they do every 10 s, so waiting for it takes up to about that long.
     */
    public void awaitReplicasConnected() {
        InetSocketAddress primary = primary();
        TopologyAwait.until("the replicas to replicate from " + primary, SETTLE_TIMEOUT,
                () -> nodes.stream().filter(n -> n.isRunning() && !n.address().equals(primary))
                        .allMatch(n -> isReplicating(n, primary)),
                () -> "nodes: " + nodes.stream().map(n -> n + " " + (n.isRunning()
                        ? n.info("replication").get("role") + " of " + n.info("replication").get("master_port")
                        : "down")).toList());
    }

    /**
     * Waits (up to 30 s) until every running Sentinel names the same primary and could start a failover now: none has
     * one in progress (its
     * {@code SENTINEL MASTER} flags lack {@code failover_in_progress}; it keeps that state until every replica follows
     * the new primary, and refuses a {@link #failover()} meanwhile with {@code INPROG}), and each sees every replica
     * up with its link to the primary up ({@code SENTINEL REPLICAS}: flags {@code slave}, {@code master-link-status
     * ok}); it refuses a forced failover with {@code NOGOODSLAVE} otherwise. A Sentinel refreshes what it knows of a
     * replica from its {@code INFO} every 10 s (every second during a failover), so after a replica restarted or
     * caught up this can take up to that long.
     */
    public void awaitSentinelsSettled() {
        TopologyAwait.until("every Sentinel to be ready for a failover", SETTLE_TIMEOUT,
                () -> reportedPrimaries().values().stream().distinct().count() == 1
                        && sentinels.stream().filter(RedisNodeProcess::isRunning).allMatch(this::isSettled),
                () -> "Sentinels report " + sentinels.stream().filter(RedisNodeProcess::isRunning)
                        .map(s -> s.call("SENTINEL", "REPLICAS", MASTER_NAME)).toList());
    }

    private boolean isSettled(RedisNodeProcess sentinel) {
        Map<String, String> master = fields(sentinel.call("SENTINEL", "MASTER", MASTER_NAME));
        if (master.getOrDefault("flags", "").contains("failover_in_progress")) {
            return false;
        }
        if (!(sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME) instanceof List<?> replicas)
                || replicas.size() != NODES - 1) {
            return false;
        }
        return replicas.stream().map(RedisSentinelTopology::fields).allMatch(replica ->
                "slave".equals(replica.get("flags")) && "ok".equals(replica.get("master-link-status")));
    }

    /** A Sentinel's flat list of names and values as a map; anything else as an empty one. */
    private static Map<String, String> fields(Object reply) {
        Map<String, String> fields = new HashMap<>();
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
            }
        }
        return fields;
    }

    /**
     * Runs one command on data node {@code node} and returns its reply: a {@link String} (status or bulk), a
     * {@link Long}, a {@link List} for an array, or {@code null}.
     *
     * @throws IllegalStateException if the node does not answer or replies with an error
     */
    public Object command(int node, String... args) {
        return node(node).call(args);
    }

    /** Stops the Sentinels, then the data nodes, and deletes the directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        TopologyLifecycle.stopAndDelete(this, dir, () -> {
            // Sentinels first, so none reconfigures the data nodes while they go down.
            sentinels.forEach(RedisNodeProcess::stop);
            nodes.forEach(RedisNodeProcess::stop);
        });
    }

    @Override
    public String toString() {
        return "RedisSentinelTopology[nodes=" + nodes + ", sentinels=" + sentinels + "]";
    }

    private void launch(Path binary) {
        for (int i = 0; i < NODES; i++) {
            nodes.add(new RedisNodeProcess(i == 0 ? "primary 0" : "replica " + i, binary,
                    TopologyLifecycle.subdirectory(dir, "node-" + i), List.of()));
        }
        Path primaryDir = TopologyLifecycle.subdirectory(dir, "node-0");
        nodes.get(0).start(port -> dataNodeConfig(port, primaryDir));
        int primaryPort = nodes.get(0).port();
        for (int i = 1; i < NODES; i++) {
            Path nodeDir = TopologyLifecycle.subdirectory(dir, "node-" + i);
            nodes.get(i).start(port -> {
                List<String> lines = dataNodeConfig(port, nodeDir);
                lines.add("replicaof " + RedisNodeProcess.HOST + " " + primaryPort);
                return lines;
            });
        }
        awaitReplicasConnected(nodes.get(0).address());
        for (int i = 0; i < SENTINELS; i++) {
            Path sentinelDir = TopologyLifecycle.subdirectory(dir, "sentinel-" + i);
            RedisNodeProcess sentinel = new RedisNodeProcess("sentinel " + i, binary, sentinelDir,
                    List.of("--sentinel"));
            sentinels.add(sentinel);
            sentinel.start(port -> sentinelConfig(port, sentinelDir, primaryPort));
        }
        String expected = "status=ok,address=" + RedisNodeProcess.HOST + ":" + primaryPort + ",slaves=" + (NODES - 1)
                + ",sentinels=" + SENTINELS;
        TopologyAwait.until("every Sentinel to know both replicas and the other Sentinels", SETTLE_TIMEOUT,
                () -> sentinels.stream().allMatch(s -> s.info("sentinel").getOrDefault("master0", "")
                        .endsWith(expected)),
                () -> "Sentinels report " + sentinels.stream().map(s -> s.info("sentinel").get("master0")).toList());
    }

    private void awaitReplicasConnected(InetSocketAddress primary) {
        TopologyAwait.until("the replicas to replicate from " + primary, SETTLE_TIMEOUT,
                () -> nodes.stream().filter(n -> !n.address().equals(primary)).allMatch(n -> isReplicating(n, primary)),
                () -> "primary's INFO replication: " + nodes.get(0).info("replication"));
    }

    private static boolean isReplicating(RedisNodeProcess node, InetSocketAddress primary) {
        Map<String, String> info = node.info("replication");
        return "slave".equals(info.get("role")) && String.valueOf(primary.getPort()).equals(info.get("master_port"))
                && "up".equals(info.get("master_link_status"));
    }

    /**
     * A data node's configuration; with {@code min-replicas-to-write} on every node, since any of them may be the
     * primary after a failover (a replica ignores it).
     */
    private List<String> dataNodeConfig(int port, Path nodeDir) {
        List<String> lines = RedisNodeProcess.baseConfig(port, nodeDir);
        if (settings.minReplicasToWrite() > 0) {
            lines.add("min-replicas-to-write " + settings.minReplicasToWrite());
            lines.add("min-replicas-max-lag " + settings.minReplicasMaxLag().toSeconds());
        }
        return lines;
    }

    private List<String> sentinelConfig(int port, Path dir, int primaryPort) {
        List<String> lines = new ArrayList<>();
        lines.add("bind " + RedisNodeProcess.HOST);
        lines.add("port " + port);
        lines.add("daemonize no");
        lines.add("dir " + RedisNodeProcess.quote(dir.toString()));
        lines.add("logfile \"\"");
        lines.add("sentinel monitor " + MASTER_NAME + " " + RedisNodeProcess.HOST + " " + primaryPort + " " + QUORUM);
        lines.add("sentinel down-after-milliseconds " + MASTER_NAME + " " + settings.downAfter().toMillis());
        lines.add("sentinel failover-timeout " + MASTER_NAME + " " + settings.failoverTimeout().toMillis());
        lines.add("sentinel parallel-syncs " + MASTER_NAME + " " + (NODES - 1));
        return lines;
    }

    /** Each running Sentinel's answer to {@code get-master-addr-by-name}, by Sentinel number; silent ones left out. */
    private Map<Integer, InetSocketAddress> reportedPrimaries() {
        Map<Integer, InetSocketAddress> reported = new HashMap<>();
        for (int i = 0; i < sentinels.size(); i++) {
            RedisNodeProcess sentinel = sentinels.get(i);
            if (!sentinel.isRunning()) {
                continue;
            }
            try {
                if (sentinel.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME) instanceof List<?> address
                        && address.size() == 2) {
                    reported.put(i, new InetSocketAddress(String.valueOf(address.get(0)),
                            Integer.parseInt(String.valueOf(address.get(1)))));
                }
            } catch (IllegalStateException | NumberFormatException e) {
                // A Sentinel that does not answer has no say.
            }
        }
        return reported;
    }

    private int nodeAt(InetSocketAddress address) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).address().equals(address)) {
                return i;
            }
        }
        throw new IllegalStateException(address + " is none of the data nodes " + nodeAddresses());
    }

    private RedisNodeProcess node(int node) {
        if (node < 0 || node >= nodes.size()) {
            throw new IllegalArgumentException("node must be between 0 and " + (NODES - 1) + ", was " + node);
        }
        return nodes.get(node);
    }

    private RedisNodeProcess sentinel(int sentinel) {
        if (sentinel < 0 || sentinel >= sentinels.size()) {
            throw new IllegalArgumentException("sentinel must be between 0 and " + (SENTINELS - 1) + ", was "
                    + sentinel);
        }
        return sentinels.get(sentinel);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("RedisSentinelTopology is closed");
        }
    }

    /** What a {@link Builder} chose, fixed for the topology's life. */
    private record Settings(Duration downAfter, Duration failoverTimeout, int minReplicasToWrite,
            Duration minReplicasMaxLag) {
    }

    /** The Sentinels' timings and the data nodes' write rule; {@link #start()} starts a topology with them. */
    public static final class Builder {

        private Duration downAfter = DEFAULT_DOWN_AFTER;
        private Duration failoverTimeout = DEFAULT_FAILOVER_TIMEOUT;
        private int minReplicasToWrite;
        private Duration minReplicasMaxLag = Duration.ofSeconds(1);

        private Builder() {
        }

        /**
         * How long a data node may not answer before a Sentinel considers it down ({@code down-after-milliseconds};
         * default 1 s, at least 100 ms). Shorter fails a dead primary over sooner, and a merely slow one too.
         */
        public Builder downAfter(Duration downAfter) {
            this.downAfter = requireAtLeast(downAfter, Duration.ofMillis(100), "downAfter");
            return this;
        }

        /**
         * The Sentinels' {@code failover-timeout} (default 5 s, at least 500 ms): how long a failover may take
         * before it is abandoned, and half the time before the same primary is failed over again.
         */
        public Builder failoverTimeout(Duration failoverTimeout) {
            this.failoverTimeout = requireAtLeast(failoverTimeout, Duration.ofMillis(500), "failoverTimeout");
            return this;
        }

        /**
         * Makes every data node refuse writes as a primary unless {@code replicas} replicas are connected with a lag
         * of at most {@code maxLag} ({@code min-replicas-to-write}, {@code min-replicas-max-lag}, whole seconds); 0
         * (the default) turns it off. A primary that lost its replicas, or was demoted by a failover it has not heard
         * of, then stops taking writes.
         */
        public Builder minReplicasToWrite(int replicas, Duration maxLag) {
            if (replicas < 0 || replicas > NODES - 1) {
                throw new IllegalArgumentException("minReplicasToWrite must be between 0 and " + (NODES - 1)
                        + ", was " + replicas);
            }
            requireAtLeast(maxLag, Duration.ofSeconds(1), "minReplicasMaxLag");
            if (maxLag.toMillis() % 1000 != 0) {
                throw new IllegalArgumentException("minReplicasMaxLag must be whole seconds, was " + maxLag);
            }
            this.minReplicasToWrite = replicas;
            this.minReplicasMaxLag = maxLag;
            return this;
        }

        /** Starts a topology with these settings, as {@link RedisSentinelTopology#start()} describes. */
        public RedisSentinelTopology start() {
            return RedisSentinelTopology.start(new Settings(downAfter, failoverTimeout, minReplicasToWrite,
                    minReplicasMaxLag));
        }

        private static Duration requireAtLeast(Duration value, Duration least, String name) {
            if (value == null || value.compareTo(least) < 0) {
                throw new IllegalArgumentException(name + " must be at least " + least.toMillis() + " ms, was "
                        + value);
            }
            return value;
        }
    }
}
