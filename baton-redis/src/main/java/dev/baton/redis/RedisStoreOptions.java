package dev.baton.redis;

import dev.baton.core.store.EventLogStore;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * How a {@link RedisStore} connects and what it keeps, immutable and validated when built.
 *
 * <p>Every field, with its default:
 * <ul>
 *   <li>{@code uri} (required): {@code redis://[:password@]host[:port][/db]}, {@code rediss://…} for TLS, or
 *       {@code redis-sentinel://[password@]host:port[,host:port…][/db]#masterName} (also
 *       {@code ?sentinelMasterId=masterName}) to find the primary through Redis Sentinel, or
 *       {@code redis-cluster://[password@]host:port[,host:port…]} (seed nodes) for a Redis Cluster. With Sentinel every
 *       connection asks the Sentinels for the primary again on each reconnect, so the store follows a failover; a
 *       cluster store follows {@code MOVED}/{@code ASK} and refreshes the cluster's topology. See
 *       {@code docs/redis-sentinel.md} and {@code docs/redis-cluster.md} for what a lease promises across a
 *       failover.</li>
 *   <li>{@code keyPrefix} (empty): put before every group name inside the hash tag ({@code {<prefix><group>}:master})
 *       and before every {@link dev.baton.core.store.MessageBus#subscribe message channel}, so several applications can share one Redis.
 *       Must not contain braces, which would move the hash tag.</li>
 *   <li>{@code commandTimeout} (2 s): the longest one command may take before it fails with a timeout. Keep it
 *       below the lease TTL so a hung server cannot outlast a leadership.</li>
 *   <li>{@code connectTimeout} (2 s): the longest a TCP connect may take, at start and on each reconnect.</li>
 *   <li>{@code eventRetention} (10 000 events): how many of the newest cluster events each group's log keeps; older
 *       ones are dropped at each append. At least {@link EventLogStore#MIN_RETAINED}, which every store keeps.</li>
 *   <li>{@code waitReplicas} and {@code waitReplicasTimeout} (0, none): after each write that fencing rests on
 *       (an acquire, a renewal, a fenced write, a fenced map's put or remove, a leader record) which the primary
 *       applied, wait ({@code WAIT n timeout}) until that many replicas acknowledged it, and count the call as failed
 *       if fewer did (fenced reads likewise); see {@link Builder#waitReplicas}. Also given in the URI as
 *       {@code ?waitReplicas=1&waitReplicasTimeout=200ms}.</li>
 * </ul>
 */
public final class RedisStoreOptions {

    private final String uri;
    private final RedisURI redisUri;
    private final List<RedisURI> clusterSeeds;
    private final String keyPrefix;
    private final Duration commandTimeout;
    private final Duration connectTimeout;
    private final int eventRetention;
    private final int waitReplicas;
    private final Duration waitReplicasTimeout;

    private RedisStoreOptions(Builder b, int waitReplicas, Duration waitReplicasTimeout, RedisURI redisUri,
            List<RedisURI> clusterSeeds) {
        this.uri = b.uri;
        this.redisUri = redisUri;
        this.clusterSeeds = clusterSeeds;
        this.keyPrefix = b.keyPrefix;
        this.commandTimeout = b.commandTimeout;
        this.connectTimeout = b.connectTimeout;
        this.eventRetention = b.eventRetention;
        this.waitReplicas = waitReplicas;
        this.waitReplicasTimeout = waitReplicas > 0 ? waitReplicasTimeout : Duration.ZERO;
    }

    /** A builder with the defaults; {@code uri} must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variation. */
    public Builder toBuilder() {
        Builder builder = new Builder().uri(uri).keyPrefix(keyPrefix).commandTimeout(commandTimeout)
                .connectTimeout(connectTimeout).eventRetention(eventRetention);
        return waitReplicas > 0 ? builder.waitReplicas(waitReplicas, waitReplicasTimeout) : builder;
    }

    /** The URI as given; may contain a password, so never log it (use {@link RedisStore#describe()}). */
    public String uri() {
        return uri;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** How many of the newest events each group's event log keeps. */
    public int eventRetention() {
        return eventRetention;
    }

    /**
     * How many replicas must acknowledge an acquire, a renewal or a fenced write, from the builder or the URI; 0 (the
     * default) waits for none.
     */
    public int waitReplicas() {
        return waitReplicas;
    }

    /** How long a write waits for {@link #waitReplicas()} replicas; zero when none are awaited. */
    public Duration waitReplicasTimeout() {
        return waitReplicasTimeout;
    }

    /** Whether the primary is found through Redis Sentinel ({@code redis-sentinel://}). */
    public boolean usesSentinel() {
        return redisUri != null && !redisUri.getSentinels().isEmpty();
    }

    /** Whether the store runs on a Redis Cluster ({@code redis-cluster://}). */
    public boolean usesCluster() {
        return !clusterSeeds.isEmpty();
    }

    /** The parsed URI of a single server or Sentinel set, for the store; carries the password. Null for a cluster. */
    RedisURI redisUri() {
        return redisUri;
    }

    /** The seed nodes of a {@code redis-cluster://} URI, each carrying the password; empty otherwise. */
    List<RedisURI> clusterSeeds() {
        return clusterSeeds;
    }

    /**
     * {@code redis://host:port/db}, or {@code redis-sentinel://host:port,host:port/db#masterName}: the URI without
     * credentials, for logs and error messages.
     */
    String describe() {
        if (usesCluster()) {
            return ClusterUri.describe(clusterSeeds);
        }
        if (usesSentinel()) {
            return "redis-sentinel://" + redisUri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort())
                    .collect(Collectors.joining(",")) + "/" + redisUri.getDatabase() + "#"
                    + redisUri.getSentinelMasterId();
        }
        return (redisUri.isSsl() ? "rediss://" : "redis://") + redisUri.getHost() + ":" + redisUri.getPort() + "/"
                + redisUri.getDatabase();
    }

    @Override
    public String toString() {
        return "RedisStoreOptions{uri=" + describe() + ", keyPrefix='" + keyPrefix + "', commandTimeout="
                + commandTimeout + ", connectTimeout=" + connectTimeout + ", eventRetention=" + eventRetention
                + (waitReplicas > 0 ? ", waitReplicas=" + waitReplicas + " within " + waitReplicasTimeout
                : "") + "}";
    }

    /** Collects and validates {@link RedisStoreOptions}. */
    public static final class Builder {

        private String uri;
        private String keyPrefix = "";
        private Duration commandTimeout = Duration.ofSeconds(2);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private int eventRetention = 10_000;
        private int waitReplicas;
        private Duration waitReplicasTimeout = Duration.ZERO;
        private boolean waitReplicasSet;

        private Builder() {}

        /**
         * Where Redis is: {@code redis://[:password@]host[:port][/db]}, {@code rediss://…},
         * {@code redis-sentinel://[password@]host:port[,host:port…][/db]#masterName}, or
         * {@code redis-cluster://[password@]host:port[,host:port…]}. Required.
         */
        public Builder uri(String uri) {
            this.uri = uri;
            return this;
        }

        /** Prefix for group keys and message channels; default empty. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Timeout of each command; default 2 s. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
            return this;
        }

        /** Timeout of each TCP connect; default 2 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** Events kept per group, newest first; default 10 000, at least {@link EventLogStore#MIN_RETAINED}. */
        public Builder eventRetention(int eventRetention) {
            this.eventRetention = eventRetention;
            return this;
        }

        /**
         * Narrows the window in which a write fencing rests on lives only on the primary: after every acquire the
         * primary granted, every renewal it accepted, and every fenced write, fenced map put or remove and leader
         * record it applied, the store runs {@code WAIT replicas timeout} on the same connection, and if fewer than
         * {@code replicas} replicas acknowledged the write within {@code timeout} the call fails with a
         * {@link dev.baton.core.store.StoreException}: the election does not lead on that grant (and retries a
         * renewal until its local deadline), and a fenced write is reported as not applied. Reads of fenced
         * registers and maps run the same {@code WAIT} and fail when fewer replicas follow the server that answered,
         * so a deposed primary's stale answer is not returned. {@code 0} turns it off (the default). The URI
         * parameters {@code ?waitReplicas=N&waitReplicasTimeout=200ms} set the same; giving both with different
         * values is an error.
         *
         * <p>What it promises: a lease this node <em>acts on</em>, and a fenced write it was told succeeded, was on at
         * least {@code replicas} replicas when acknowledged. With a majority of the data nodes (1 of 2 replicas), an
         * old primary cut off from its replicas, or demoted by a failover, cannot acknowledge anything, so a deposed
         * leader's writes there fail instead of being acknowledged and then lost. What it does not promise: the write
         * is applied on the primary before the wait and is not undone when the wait falls short (a grant stays until
         * its TTL runs out: other nodes are still denied, the same node may acquire it again); a failover may still
         * promote a replica that did not acknowledge (Sentinel prefers the most up-to-date one but does not require
         * it), and a replica acknowledges receipt, not a write to disk. It narrows Redis's asynchronous-replication
         * window; it does not close it. Terms stay above every earlier term either way (the clock floor of
         * {@code acquire.lua}). The wait holds the store's command connection for up to {@code timeout}, so keep it
         * short; it must be below {@code commandTimeout}.
         *
         * @param replicas how many replicas must acknowledge, at least 0
         * @param timeout  how long to wait for them, positive when {@code replicas} is positive
         */
        public Builder waitReplicas(int replicas, Duration timeout) {
            this.waitReplicas = replicas;
            this.waitReplicasTimeout = timeout;
            this.waitReplicasSet = true;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first invalid field
         */
        public RedisStoreOptions build() {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("uri is required, e.g. redis://127.0.0.1:6379");
            }
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null (use \"\" for none)");
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', which would move the "
                        + "hash tag: " + keyPrefix);
            }
            requirePositive(commandTimeout, "commandTimeout");
            requirePositive(connectTimeout, "connectTimeout");
            if (eventRetention < EventLogStore.MIN_RETAINED) {
                throw new IllegalArgumentException("eventRetention must be at least " + EventLogStore.MIN_RETAINED
                        + " (the event log contract's minimum), was " + eventRetention);
            }
            ReplicaWaitQuery query = ReplicaWaitQuery.parse(uri);
            int replicas = waitReplicas;
            Duration timeout = waitReplicasTimeout;
            if (query.replicas().isPresent()) {
                if (waitReplicasSet && (waitReplicas != query.replicas().getAsInt()
                        || !query.timeout().equals(waitReplicasTimeout))) {
                    throw new IllegalArgumentException("waitReplicas is set both by the builder (" + waitReplicas
                            + " within " + waitReplicasTimeout + ") and in the uri (" + query.replicas().getAsInt()
                            + " within " + query.timeout() + "); give it once");
                }
                replicas = query.replicas().getAsInt();
                timeout = query.timeout();
            }
            if (replicas < 0) {
                throw new IllegalArgumentException("waitReplicas must be at least 0, was " + replicas);
            }
            if (replicas > 0) {
                requirePositive(timeout, "waitReplicas timeout");
                if (timeout.compareTo(commandTimeout) >= 0) {
                    throw new IllegalArgumentException("waitReplicas timeout must be below commandTimeout ("
                            + commandTimeout + "), was " + timeout);
                }
            }
            String server = query.uri();
            if (server.startsWith(ClusterUri.SCHEME)) {
                return new RedisStoreOptions(this, replicas, timeout, null, ClusterUri.parse(server));
            }
            return new RedisStoreOptions(this, replicas, timeout, parse(server), List.of());
        }

        private static RedisURI parse(String uri) {
            boolean sentinel = uri.startsWith("redis-sentinel://");
            if (!uri.startsWith("redis://") && !uri.startsWith("rediss://") && !sentinel) {
                throw new IllegalArgumentException("uri must start with redis://, rediss://, redis-sentinel:// or "
                        + "redis-cluster://, was " + withoutCredentials(uri));
            }
            RedisURI parsed;
            try {
                parsed = RedisURI.create(uri);
            } catch (RuntimeException e) {
                // Not chained: Lettuce's message may quote the URI, password included.
                throw sentinel ? notASentinelUri(uri)
                        : new IllegalArgumentException("uri is not a valid Redis URI: " + withoutCredentials(uri));
            }
            if (sentinel && (parsed.getSentinels().isEmpty() || parsed.getSentinelMasterId() == null
                    || parsed.getSentinelMasterId().isBlank())) {
                throw notASentinelUri(uri);
            }
            return parsed;
        }

        private static IllegalArgumentException notASentinelUri(String uri) {
            return new IllegalArgumentException("uri must name the Sentinels and the primary's master name, as in "
                    + "redis-sentinel://[password@]host:port[,host:port...][/db]#masterName, was "
                    + withoutCredentials(uri));
        }

        private static void requirePositive(Duration value, String field) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(field + " must be positive, was " + value);
            }
        }

        /** Drops a {@code user:password@} part so a bad URI can be shown in a message. */
        static String withoutCredentials(String uri) {
            return uri.replaceFirst("//[^/@]*@", "//");
        }
    }
}
