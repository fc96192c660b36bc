package dev.baton.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code baton.*} properties: which backend the application's election runs on, for which group, with which
 * timing, and how this node is named. Only {@code baton.backend} is needed (with {@code spring.application.name} as
 * the group); every timing left unset takes the value of {@code baton.profile}.
 */
@ConfigurationProperties("baton")
public class BatonProperties {

    /** Whether Baton is configured at all; false leaves the application without an election. */
    private boolean enabled = true;

    /**
     * Where the leader is elected: memory (this process only), redis://HOST:PORT[/DB], rediss://...,
     * redis-sentinel://HOST:PORT[,HOST:PORT...][/DB]#MASTER, redis-cluster://HOST:PORT[,HOST:PORT...],
     * postgresql://USER[:PASSWORD]@HOST[:PORT][,...]/DB[?schema=NAME], etcd://HOST:PORT[,HOST:PORT...][/PREFIX],
     * quorum (the serverless seed-node quorum protocol, see baton.peer and baton.quorum) or bully (the serverless
     * bully election, see baton.peer and baton.bully). The store forms need baton-redis, baton-postgres or
     * baton-etcd on the class path, quorum and bully need baton-peer.
     */
    private String backend;

    /** The group to elect a leader for, e.g. orders-scheduler. Defaults to spring.application.name. */
    private String group;

    /**
     * Named timing preset: "default" (lease 30 s, renewed every 10 s) or "fast" (lease 3 s, renewed every 1 s).
     * The timing properties below override single values of it on the store backends.
     */
    private String profile = "default";

    /** Whether the election starts when the application context starts. */
    private boolean autoStartup = true;

    /** How long the store keeps a lease that is not renewed (store backends). Default: the profile's (30 s). */
    private Duration leaseTtl;

    /** How often the leader renews its lease (store backends). Default: the profile's (10 s). */
    private Duration renewInterval;

    /** The followers' fallback poll; they are woken by push notices first (store backends). Default: 5 s. */
    private Duration checkInterval;

    /** The longest one store call may take (store backends). Default: the profile's (2 s). */
    private Duration storeTimeout;

    /** Pause between retries of a failed renewal or acquisition (store backends). Default: the profile's (1 s). */
    private Duration retryInterval;

    /**
     * Subtracted from the leader's local deadline, which is renewal send time + lease-ttl x (1 - max-clock-drift) -
     * safety-margin (store backends). Default: 5 % of the lease TTL, at least 10 ms.
     */
    private Duration safetyMargin;

    /** The largest clock rate difference assumed between this node and the store, e.g. 0.01 (store backends). */
    private Double maxClockDrift;

    /** How long this process's registration lives without a heartbeat (store backends). Default: 45 s. */
    private Duration processTtl;

    /** How often this process renews its registration (store backends). Default: 10 s. */
    private Duration processHeartbeatInterval;

    /** Whether leaderships won and lost and members joining and leaving are written to the store's event log. */
    private boolean recordEvents = true;

    private final Node node = new Node();
    private final Peer peer = new Peer();
    private final Quorum quorum = new Quorum();
    private final Bully bully = new Bully();
    private final Fencing fencing = new Fencing();
    private final Http http = new Http();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public String getGroup() {
        return group;
    }

    public void setGroup(String group) {
        this.group = group;
    }

    public String getProfile() {
        return profile;
    }

    public void setProfile(String profile) {
        this.profile = profile;
    }

    public boolean isAutoStartup() {
        return autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    public Duration getLeaseTtl() {
        return leaseTtl;
    }

    public void setLeaseTtl(Duration leaseTtl) {
        this.leaseTtl = leaseTtl;
    }

    public Duration getRenewInterval() {
        return renewInterval;
    }

    public void setRenewInterval(Duration renewInterval) {
        this.renewInterval = renewInterval;
    }

    public Duration getCheckInterval() {
        return checkInterval;
    }

    public void setCheckInterval(Duration checkInterval) {
        this.checkInterval = checkInterval;
    }

    public Duration getStoreTimeout() {
        return storeTimeout;
    }

    public void setStoreTimeout(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    public Duration getRetryInterval() {
        return retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    public Duration getSafetyMargin() {
        return safetyMargin;
    }

    public void setSafetyMargin(Duration safetyMargin) {
        this.safetyMargin = safetyMargin;
    }

    public Double getMaxClockDrift() {
        return maxClockDrift;
    }

    public void setMaxClockDrift(Double maxClockDrift) {
        this.maxClockDrift = maxClockDrift;
    }

    public Duration getProcessTtl() {
        return processTtl;
    }

    public void setProcessTtl(Duration processTtl) {
        this.processTtl = processTtl;
    }

    public Duration getProcessHeartbeatInterval() {
        return processHeartbeatInterval;
    }

    public void setProcessHeartbeatInterval(Duration processHeartbeatInterval) {
        this.processHeartbeatInterval = processHeartbeatInterval;
    }

    public boolean isRecordEvents() {
        return recordEvents;
    }

    public void setRecordEvents(boolean recordEvents) {
        this.recordEvents = recordEvents;
    }

    public Node getNode() {
        return node;
    }

    public Peer getPeer() {
        return peer;
    }

    public Quorum getQuorum() {
        return quorum;
    }

    public Bully getBully() {
        return bully;
    }

    public Fencing getFencing() {
        return fencing;
    }

    public Http getHttp() {
        return http;
    }

    /** How this node shows in the group's registry. */
    public static class Node {

        /**
         * This node's id in the group, unique among its members; a stable id lets a restarted node take its old
         * place. Default: a random UUID. On quorum and bully the id is always the peer address (baton.peer.listen).
         */
        private String id;

        /** Human-readable name of the node. Defaults to spring.application.name, else "baton". */
        private String identifier;

        /** Where this node serves its API, e.g. http://10.0.0.5:8080, shown to the other members. */
        private String apiAddress;

        /** Free-form metadata shown with this node in the registry. */
        private Map<String, String> metadata = new LinkedHashMap<>();

        public String getId() {
            return id;
        }

        public void setId(String id) {
            this.id = id;
        }

        public String getIdentifier() {
            return identifier;
        }

        public void setIdentifier(String identifier) {
            this.identifier = identifier;
        }

        public String getApiAddress() {
            return apiAddress;
        }

        public void setApiAddress(String apiAddress) {
            this.apiAddress = apiAddress;
        }

        public Map<String, String> getMetadata() {
            return metadata;
        }

        public void setMetadata(Map<String, String> metadata) {
            this.metadata = metadata;
        }
    }

    /** The serverless backends' peer transport (baton.backend=quorum or bully). */
    public static class Peer {

        /**
         * HOST:PORT this node listens on for the other nodes, e.g. 127.0.0.1:7401; also its node id, so spell it as
         * the other nodes' baton.quorum.seeds do. Not a wildcard address.
         */
        private String listen;

        /**
         * Shared secret the nodes authenticate each other with (at least 16 bytes). Needed when baton.peer.listen is
         * reachable from other machines.
         */
        private String secret;

        public String getListen() {
            return listen;
        }

        public void setListen(String listen) {
            this.listen = listen;
        }

        public String getSecret() {
            return secret;
        }

        public void setSecret(String secret) {
            this.secret = secret;
        }
    }

    /** The seed-node quorum protocol (baton.backend=quorum). */
    public static class Quorum {

        /** The seed nodes, HOST:PORT each, the same list on every node. */
        private List<String> seeds = new ArrayList<>();

        /** The number of nodes in the cluster; a leader needs a majority of it. */
        private Integer clusterSize;

        /** Directory where the node keeps its votes across restarts. Default: in memory only. */
        private String dataDir;

        public List<String> getSeeds() {
            return seeds;
        }

        public void setSeeds(List<String> seeds) {
            this.seeds = seeds;
        }

        public Integer getClusterSize() {
            return clusterSize;
        }

        public void setClusterSize(Integer clusterSize) {
            this.clusterSize = clusterSize;
        }

        public String getDataDir() {
            return dataDir;
        }

        public void setDataDir(String dataDir) {
            this.dataDir = dataDir;
        }
    }

    /** The bully election (baton.backend=bully). */
    public static class Bully {

        /**
         * Where the group's leader record lives: standalone (this process only), file:PATH (a file shared by the
         * processes of one machine), or a redis://, redis-sentinel:// or postgresql:// URI.
         */
        private String leaderStore;

        public String getLeaderStore() {
            return leaderStore;
        }

        public void setLeaderStore(String leaderStore) {
            this.leaderStore = leaderStore;
        }
    }

    /** The fencing beans. */
    public static class Fencing {

        /** Name of the register the auto-configured FencedRegister bean writes (store backends). */
        private String register = "default";

        /** Table the JdbcFence bean keeps the highest term of each fence in; created if missing. */
        private String jdbcTable = "baton_fence";

        public String getRegister() {
            return register;
        }

        public void setRegister(String register) {
            this.register = register;
        }

        public String getJdbcTable() {
            return jdbcTable;
        }

        public void setJdbcTable(String jdbcTable) {
            this.jdbcTable = jdbcTable;
        }
    }

    /** Leader-only HTTP writes (needs baton-http and a servlet web application). */
    public static class Http {

        /**
         * URL patterns (servlet form, e.g. /orders/*) whose writes (POST, PUT, PATCH, DELETE) only the leader serves;
         * on a follower they are answered as baton.http.mode says. Empty: no filter.
         */
        private List<String> leaderOnlyPaths = new ArrayList<>();

        /**
         * What a follower answers to such a write: "failover" (503 with X-Leader-Id and X-Leader-Url, for a proxy
         * that retries on the next server) or "redirect" (307 to the leader, which needs baton.node.api-address).
         */
        private String mode = "failover";

        public List<String> getLeaderOnlyPaths() {
            return leaderOnlyPaths;
        }

        public void setLeaderOnlyPaths(List<String> leaderOnlyPaths) {
            this.leaderOnlyPaths = leaderOnlyPaths;
        }

        public String getMode() {
            return mode;
        }

        public void setMode(String mode) {
            this.mode = mode;
        }
    }
}
