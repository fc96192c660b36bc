package dev.baton.server.chaos;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The faults a chaos trial can inject, by the name they carry in the history file and the report ({@code kill-node},
 * {@code store-blackhole}, ...). The report groups trials by these names.
 */
enum FaultKind {
    /** No fault: the trial measures the cluster at rest. */
    NONE("none", false, false),
    /** The harness SIGKILLs one node's process (the leader half the time); it starts again when the fault heals. */
    KILL_NODE("kill-node", false, false),
    /** The harness SIGSTOPs one node's process for longer than a lease, then SIGCONTs it. */
    PAUSE_NODE("pause-node", false, false),
    /** The store is killed (SIGKILL) and starts again with its data (a durable store: PostgreSQL). */
    STORE_RESTART("store-restart", false, false),
    /** The store restarts with no data. */
    STORE_RESTART_EMPTY("store-restart-empty", true, false),
    /** The store comes back from a snapshot taken before a hand-over (Redis RDB; bully: a leader-record file copy). */
    STORE_RESTORE_SNAPSHOT("store-restore-snapshot", true, false),
    /** The store comes back from an append-only file that lost its tail. */
    STORE_TRUNCATED_AOF("store-truncated-aof", true, false),
    /** The store comes back from an older backup. */
    STORE_RESTORE_BACKUP("store-restore-backup", true, false),
    /** The store's process is paused. */
    STORE_PAUSE("store-pause", false, false),
    /** Every node's connection to the store gets added latency. */
    STORE_LATENCY("store-latency", false, false),
    /** One node's traffic to the store is silently dropped. */
    STORE_BLACKHOLE("store-blackhole", false, true),
    /** One node's connections to the store are reset. */
    STORE_RESET("store-reset", false, true),
    /** One node is cut off from the others (serverless backends). */
    PARTITION_ONE("partition-one", false, true),
    /** Two nodes are cut off from the others and from each other (serverless backends). */
    PARTITION_TWO("partition-two", false, true),
    // Redis Cluster: the node that serves the group's slot changes under the running nodes.
    /**
     * The master serving the group's slot is killed (SIGKILL) and its replica promoted; the old master restarts as a
     * replica when the fault heals. Replication is asynchronous, so acknowledged writes may be lost.
     */
    CLUSTER_MASTER_KILL("cluster-master-kill", true, false),
    /** A manual failover ({@code CLUSTER FAILOVER}) hands the group's slot to the master's replica, losing nothing. */
    CLUSTER_FAILOVER("cluster-failover", false, false),
    /**
     * The group's slot moves to another master: {@code SETSLOT MIGRATING/IMPORTING} when the fault starts, the keys
     * {@code MIGRATE}d and {@code SETSLOT NODE} when it heals; in between the slot is half moved.
     */
    CLUSTER_SLOT_MIGRATION("cluster-slot-migration", false, false),
    // etcd: the store's own members fail under the running nodes.
    /** One etcd member that does not lead is killed (SIGKILL); it starts again with its data when the fault heals. */
    ETCD_MEMBER_KILL("etcd-member-kill", false, false),
    /** The etcd leader is killed (SIGKILL) and the others elect one; it starts again with its data on heal. */
    ETCD_LEADER_KILL("etcd-leader-kill", false, false),
    /** The etcd leader is frozen (SIGSTOP): a hung leader the others replace; it runs again (SIGCONT) on heal. */
    ETCD_LEADER_PAUSE("etcd-leader-pause", false, false),
    /**
     * One node's link to the etcd leader holds everything it is sent (a blackhole) for longer than a lease, while its
     * links to the other two members carry on; on heal the held calls reach etcd, after the calls the node made since
     * through the others. They are stragglers: calls the node gave up on that land late.
     */
    ETCD_LINK_HELD("etcd-link-held", false, false),

    // Replicated stores, Redis Sentinel and PostgreSQL with a streaming standby: the store's own failover. Each may
    // lose the writes the new primary had not received yet (replication is asynchronous), so none is checked for
    // acknowledged items.
    /** The Redis primary is killed (SIGKILL) and the Sentinels promote a replica; the old node returns as a replica. */
    SENTINEL_PRIMARY_KILLED("sentinel-primary-killed", true, false),
    /**
     * Both Redis replicas stop replicating, the lease changes hands, then the primary is killed: a lagging replica is
     * promoted.
     */
    SENTINEL_LAGGING_PROMOTED("sentinel-lagging-promoted", true, false),
    /** {@code SENTINEL FAILOVER}: a forced switch while the old primary still runs. */
    SENTINEL_FAILOVER("sentinel-failover", true, false),
    /** The PostgreSQL primary is killed and its standby promoted; the nodes follow through the multi-host URI. */
    STANDBY_PROMOTED("standby-promoted", true, false),
    /** The standby stops receiving WAL, the lease changes hands, the primary is killed and the standby promoted. */
    LAGGING_STANDBY_PROMOTED("lagging-standby-promoted", true, false),
    /**
     * Redis Sentinel with a zombie primary: the primary is cut off from the Sentinels, the replicas and every node but
     * one, which still reaches it; the Sentinels promote a replica, and the old primary serves that one node until it
     * is shot two leases later. Its writes are lost then.
     */
    SENTINEL_ZOMBIE_PRIMARY("sentinel-zombie-primary", true, false),

    // The quorum backend: the nodes' messages and their vote logs, through each node's --chaos-hooks.
    /**
     * One node's protocol messages, or every node's, to and from every peer are duplicated, reordered or delayed
     * (one mode, drawn with its delay) for 1-3 s.
     */
    PEER_MESSAGE_CHAOS("peer-message-chaos", false, false),
    /**
     * A node is killed, the newest record of its vote log torn (the rest of its slot zeroed, so its checksum fails),
     * and the node started again: it must see the loss and recover from the others before it votes.
     */
    VOTE_LOG_TORN("vote-log-torn", false, false),
    /**
     * A node's next vote-log fsync fails (EIO) and the leader hands over, so that every node saves a vote: the node
     * sends no vote that depended on the save and stops; the harness restarts it when the fault heals.
     */
    VOTE_LOG_EIO("vote-log-eio", false, false),
    /**
     * Only with workers, and only when --faults names it: a follower is killed (SIGKILL) and started again at once, so
     * its replica of the work items comes back empty (the replicas live in memory; its vote log is kept); the moment
     * it has started, the leader is killed too, held down for 0.5-3 s and started again. The follower must not count
     * toward a new leader's catch-up, nor answer reads, before a leader gave it the state: else acknowledged items are
     * lost.
     */
    REPLICA_RESTART_EMPTY("replica-restart-empty", false, false),

    // Redis and PostgreSQL end a lease on the store's wall clock; these move that clock (never the machine's). They run
    // only when --faults names them.
    /**
     * The leader's link to the store is cut, so its lease runs out, and the store's clock steps forward by half the
     * margin ({@code safetyMargin + leaseTtl * maxClockDrift}): the lease ends that much early, still after the
     * holder's local deadline.
     */
    STORE_CLOCK_STEP_SMALL("store-clock-step-small", false, true),
    /**
     * The lease changes hands, the store's clock steps back by 2-4 s (more than the time since that grant) and the
     * lease changes hands twice more: those grants' clock is below the last term, so the store's counter must keep the
     * terms rising.
     */
    STORE_CLOCK_STEP_BACK("store-clock-step-back", false, false),
    /**
     * The store's clock runs 1 % fast or slow while the leader's link is cut for 1.2-2 leases, so its lease runs out
     * on the skewed clock.
     */
    STORE_CLOCK_SKEW("store-clock-skew", false, true),
    /**
     * The store's clock steps forward by twice the lease TTL while a leader holds the lease (in half the trials with
     * the leader's link cut first): the store ends the lease at once while its holder still counts itself valid, and a
     * follower that asks first is granted it. This breaks the assumption exclusion rests on (the store's clock does
     * not step forward by more than the margin), so overlaps in these trials are expected and reported apart.
     */
    STORE_CLOCK_STEP_LARGE("store-clock-step-large", false, true),
    /**
     * The straggler: the next request one node sends on its link to the store is held, with whatever answers it, for
     * 1.2-2 leases while the node's other connections carry on (in half the trials the leader releases just after the
     * hold is set, so an acquire is in flight), then delivered late: behind PostgreSQL's pool one call stuck past its
     * timeout and overtaken by the node's later calls; on Redis, whose calls share one connection, every call of that
     * connection.
     */
    STORE_LINK_STRAGGLER("store-link-straggler", false, false),
    /**
     * The straggler aimed inside a node: its next acquire (usually, a follower's), renewal or release (the leader's) is
     * held before it reaches the store while its later calls pass, and sent to the store only after the node went on,
     * for an acquire once the node leads on a later call: the store then grants the node a newer term it never asked
     * for in time. What a statement queued behind a slow one in a connection pool does.
     */
    STORE_CALL_STRAGGLER("store-call-straggler", false, false),
    /**
     * Only with workers: the leader stops itself (SIGSTOP, its {@code pause-after-fenced-write} hook) right after the
     * store accepted its fenced write of an item's assignment and before the {@code subscribe} goes to the worker; the
     * harness lets it go on once another node leads, so the command that then goes out is a deposed leader's. Last in
     * the list, so that runs without workers draw as before.
     */
    PAUSE_AFTER_FENCED_WRITE("pause-after-fenced-write", false, false);

    private final String wireName;
    private final boolean canLoseData;
    private final boolean cutsOffTarget;

    FaultKind(String wireName, boolean canLoseData, boolean cutsOffTarget) {
        this.wireName = wireName;
        this.canLoseData = canLoseData;
        this.cutsOffTarget = cutsOffTarget;
    }

    /** The name in the history file and the report, e.g. {@code store-blackhole}. */
    @JsonValue
    String wireName() {
        return wireName;
    }

    /** Whether the fault can make the store forget writes it acknowledged (so acknowledged items are not checked). */
    boolean canLoseData() {
        return canLoseData;
    }

    /**
     * Whether the node a fault of this kind targets should be taken to have lost its leadership when the fault
     * starts: it can no longer renew, so by the time anyone notices, its lease has run out or is about to.
     */
    boolean cutsOffTarget() {
        return cutsOffTarget;
    }

    /** Whether the fault moves the store's wall clock, so the store must run on a steppable one. */
    boolean movesStoreClock() {
        return this == STORE_CLOCK_STEP_SMALL || this == STORE_CLOCK_STEP_BACK || this == STORE_CLOCK_SKEW
                || this == STORE_CLOCK_STEP_LARGE;
    }

    /**
     * Whether the fault is meant to break an assumption exclusion rests on, so that two nodes counting themselves
     * leader at once in its trials is expected: the exclusion checker reports those trials apart.
     */
    boolean expectsExclusionToBreak() {
        return this == STORE_CLOCK_STEP_LARGE;
    }

    /**
     * The kind named {@code name}.
     *
     * @throws IllegalArgumentException naming the unknown kind and the known ones
     */
    @JsonCreator
    static FaultKind of(String name) {
        for (FaultKind kind : values()) {
            if (kind.wireName.equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown fault kind '" + name + "' (known: "
                + Arrays.stream(values()).map(FaultKind::wireName).collect(Collectors.joining(", ")) + ")");
    }

    @Override
    public String toString() {
        return wireName;
    }
}
