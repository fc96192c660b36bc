package dev.baton.server.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The serverless backends under fault: {@code quorum} (old name {@code peer}: the seed-node quorum protocol, a leader
 * needs a majority) and {@code bully} (the highest process id leads, terms from a leader-record file). No server to
 * start; the node ids are the nodes' listen addresses. Beside killing and pausing nodes, the run cuts nodes off from
 * each other through the nodes' own transports. On {@code quorum} the run also duplicates, reorders and delays the
 * nodes' messages, tears the newest record of a killed node's vote log, and fails a node's next vote-log fsync. On
 * {@code bully} the leader-record file can also be restored from an older copy while the whole group is down: the case
 * in which a file store alone would hand out a term twice.
 *
 * <p>With workers ({@code quorum} only) the nodes run the work cluster, whose work items live in the nodes' replicated
 * work store, so the trials write and read items; then {@code replica-restart-empty} can be asked for: a follower
 * restarted with an empty replica, then the leader killed.
 */
final class PeerTarget implements ChaosTarget {

    private final String backend;
    private final boolean bully;
    private final int nodes;
    private final Path dir;
    /** Whether the nodes run the work cluster (with workers), so that work items live in their replicated store. */
    private final boolean items;
    private final List<String> addresses = new ArrayList<>();
    private final Path leaderFile;
    private final Path leaderCopy;
    private Optional<VoteLogTear.Torn> lastTear = Optional.empty();

    /** The nodes of {@code backend}: {@code quorum} (or its old name {@code peer}) or {@code bully}, without workers. */
    PeerTarget(String backend, int nodes, Path dir) {
        this(backend, nodes, dir, false);
    }

    /**
     * The nodes of {@code backend}; {@code items} if they run the work cluster (the run has workers), so that the
     * trials write work items to their replicated work store ({@code quorum} only).
     */
    PeerTarget(String backend, int nodes, Path dir, boolean items) {
        this.backend = backend;
        this.bully = backend.equals("bully");
        if (items && bully) {
            throw new IllegalArgumentException("bully runs no work cluster in the harness");
        }
        this.nodes = nodes;
        this.dir = dir;
        this.items = items;
        LoopbackPorts.free(nodes).forEach(port -> addresses.add(LoopbackPorts.HOST + ":" + port));
        this.leaderFile = dir.resolve("leader.json");
        this.leaderCopy = dir.resolve("leader.json.older");
    }

    @Override
    public String name() {
        return backend;
    }

    @Override
    public List<FaultKind> faults() {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.NONE, FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
                FaultKind.PARTITION_ONE, FaultKind.PARTITION_TWO));
        if (bully) {
            faults.add(FaultKind.STORE_RESTORE_SNAPSHOT);
        } else {
            faults.addAll(List.of(FaultKind.PEER_MESSAGE_CHAOS, FaultKind.VOTE_LOG_TORN, FaultKind.VOTE_LOG_EIO));
        }
        return faults;
    }

    /**
     * {@code quorum}: {@link FaultKind#REPLICA_RESTART_EMPTY}, only when {@code --faults} names it (so that a quorum
     * seed draws as before), and only with workers (the work items it must not lose live in the work cluster's store).
     */
    @Override
    public List<FaultKind> faultsOnRequest() {
        return bully ? List.of() : List.of(FaultKind.REPLICA_RESTART_EMPTY);
    }

    /** None: the nodes' {@code pause-after-fenced-write} hook acts on a store's fenced maps, which these have not. */
    @Override
    public List<FaultKind> workerFaults() {
        return List.of();
    }

    @Override
    public String nodeId(int index) {
        return addresses.get(index);
    }

    @Override
    public List<String> nodeArgs(int index) {
        List<String> args = new ArrayList<>(List.of("--backend", name(), "--listen", addresses.get(index),
                "--profile", "fast"));
        if (bully) {
            args.addAll(List.of("--leader-store", "file:" + leaderFile));
        } else {
            args.addAll(List.of("--seeds", String.join(",", addresses), "--cluster-size", Integer.toString(nodes),
                    "--data-dir", dataDir(index).toString()));
        }
        return args;
    }

    /**
     * Where node {@code index} of {@code quorum} keeps its vote log: the only state it keeps on disk. Its replica of
     * the work items lives in memory, so every restart brings it back empty.
     */
    private Path dataDir(int index) {
        return dir.resolve("data-n" + (index + 1));
    }

    /** The ids of every node but those at {@code excluded}, comma-separated, for a {@code partition} command. */
    String othersThan(List<Integer> excluded) {
        List<String> others = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            if (!excluded.contains(i)) {
                others.add(addresses.get(i));
            }
        }
        return String.join(",", others);
    }

    /** The ids of the nodes at {@code indexes}, comma-separated. */
    String idsOf(List<Integer> indexes) {
        return indexes.stream().map(addresses::get).collect(Collectors.joining(","));
    }

    /** Whether the nodes keep work items: in their replicated work store, when they run the work cluster. */
    @Override
    public boolean hasItems() {
        return items;
    }

    @Override
    public boolean itemsInNodeMemory() {
        return items;
    }

    @Override
    public boolean fencesInStore() {
        return false;
    }

    /**
     * Peer: a follower starts an election after the leader's silence ({@code ttlTimeout}, 1 s in the fast profile),
     * which takes a pre-proposal and a proposal round; bully: suspicion after three missed pings, an indirect probe,
     * an election timeout, and the store's compare-and-set. Both well within five seconds on a quiet machine; the
     * bound leaves room for a node that was paused to rejoin.
     */
    @Override
    public Duration leaderBound() {
        return Duration.ofSeconds(5);
    }

    /** The longest a leadership stays valid without confirmation in the fast profile, rounded up to a second. */
    @Override
    public Duration leaseTtl() {
        return Duration.ofSeconds(1);
    }

    @Override
    public boolean needsNodesDown(FaultKind fault) {
        return fault == FaultKind.STORE_RESTORE_SNAPSHOT;
    }

    @Override
    public void prepare(FaultKind fault) {
        if (fault == FaultKind.STORE_RESTORE_SNAPSHOT) {
            copy(leaderFile, leaderCopy);
        }
    }

    /**
     * {@code bully}: restores the older copy of the leader-record file. {@code quorum}, {@link FaultKind#VOTE_LOG_TORN}:
     * tears the newest record of node {@code target}'s vote log, which must not be running (see {@link VoteLogTear}).
     */
    @Override
    public void inject(FaultKind fault, int target, Duration latency) {
        if (fault == FaultKind.STORE_RESTORE_SNAPSHOT && bully) {
            copy(leaderCopy, leaderFile);
        } else if (fault == FaultKind.VOTE_LOG_TORN && !bully) {
            lastTear = VoteLogTear.tearNewest(dataDir(target));
        } else {
            throw new IllegalArgumentException("not a " + name() + " store fault: " + fault);
        }
    }

    /** What the last {@link FaultKind#VOTE_LOG_TORN} tore: empty if the log held fewer than two records. */
    Optional<VoteLogTear.Torn> lastTear() {
        return lastTear;
    }

    @Override
    public void heal(FaultKind fault) {
    }

    @Override
    public void close() {
    }

    private static void copy(Path from, Path to) {
        try {
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }
}
