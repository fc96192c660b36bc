package dev.baton.server.chaos;

import java.util.Locale;

/**
 * The faults a chaos trial can inject, by what they do to the cluster. Which ones apply depends on the backend
 * ({@link ChaosTarget#faults()}): a serverless cluster has no store to kill, a store cluster has no peer links to cut.
 */
enum FaultKind {
    /** Nothing: a control trial, which still exercises hand-over through a leader release. */
    NONE(false),
    /** SIGKILL of one node (the leader half the time); it is started again when the fault heals. */
    KILL_NODE(false),
    /** SIGSTOP of one node (the leader half the time) for longer than its lease, then SIGCONT. */
    PAUSE_NODE(false),
    /** The store is killed (SIGKILL) and starts again with its data (a durable store: PostgreSQL). */
    STORE_RESTART(false),
    /** The store is killed and starts again with no data at all. */
    STORE_RESTART_EMPTY(true),
    /** The store is killed and starts again from a snapshot taken earlier in the trial, before a hand-over. */
    STORE_RESTORE_SNAPSHOT(true),
    /** Redis is killed and starts again from an append-only file that lost its last writes (appendfsync everysec). */
    STORE_TRUNCATED_AOF(true),
    /** PostgreSQL is killed and its tables are restored from a backup taken earlier in the trial. */
    STORE_RESTORE_BACKUP(true),
    /** The store's process is frozen (SIGSTOP): connections stay open, nothing is answered. */
    STORE_PAUSE(false),
    /** Every node's link to the store gets added latency. */
    STORE_LATENCY(false),
    /** One node's link to the store forwards nothing, in either direction, for longer than a lease. */
    STORE_BLACKHOLE(false),
    /** One node's connections to the store are reset, and new ones refused, for a while. */
    STORE_RESET(false),
    /** One node is cut off from every other node (serverless backends). */
    PARTITION_ONE(false),
    /** Two nodes are cut off from the others and from each other (serverless backends). */
    PARTITION_TWO(false);

    private final boolean dataLoss;

    FaultKind(boolean dataLoss) {
        this.dataLoss = dataLoss;
    }

    /** Whether the store may forget acknowledged writes under this fault (durability is then not checked). */
    boolean dataLoss() {
        return dataLoss;
    }

    /** The name in histories, reports and {@code --faults}: {@code store-restore-snapshot}. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The kind named {@code label}, as {@link #label()} writes it. */
    static FaultKind ofLabel(String label) {
        for (FaultKind kind : values()) {
            if (kind.label().equals(label)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + label + "'");
    }
}
