package dev.baton.core.compat;

import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.NodeInfo;
import dev.baton.core.Registration;
import dev.baton.core.Role;
import dev.baton.core.StoreElection;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Seed 000's {@code MasterElection}, in its own vocabulary, over Baton's {@link StoreElection}: for users who come
 * from the seed. Every method of the seed's public interface is here with the same meaning; asynchronous ones return a
 * {@link CompletableFuture} where the seed returns a Promise.
 *
 * <pre>{@code
 * MasterElection election = MasterElection.create(store, "cms-cluster", Duration.ofSeconds(30),
 *         Duration.ofSeconds(10), Duration.ofSeconds(5), "cms-backend-prod");
 * election.addListener(new MasterElectionListener() {
 *     public void onMasterAcquired() { startCoordinating(); }
 *     public void onMasterLost() { stopCoordinating(); }
 * });
 * boolean isMaster = election.start().thenCompose(v -> election.waitForElectionComplete(30_000)).join();
 * }</pre>
 *
 * <p>What Baton adds under the same names: the lock carries a fencing term ({@link #election()}
 * {@code .leadership()}), a master stops counting itself master before its lock can expire in the store, and followers
 * take over at once on a release instead of at their next 5 s check.
 */
public final class MasterElection {

    private final StoreElection election;
    private final String identifier;

    private MasterElection(StoreElection election, String identifier) {
        this.election = election;
        this.identifier = identifier;
    }

    /**
     * The seed's {@code initialize(lockName, lockTtl, heartbeatInterval, checkInterval, identifier)}: a new election on
     * {@code store} for group {@code lockName}, with a fresh UUID node id. Other timings keep their defaults.
     */
    public static MasterElection create(CoordinationStore store, String lockName, Duration lockTtl,
            Duration heartbeatInterval, Duration checkInterval, String identifier) {
        ElectionConfig config = ElectionConfig.builder().leaseTtl(lockTtl).renewInterval(heartbeatInterval)
                .checkInterval(checkInterval).build();
        return create(store, lockName, config, identifier);
    }

    /** A new election on {@code store} for group {@code lockName} with the given configuration. */
    public static MasterElection create(CoordinationStore store, String lockName, ElectionConfig config,
            String identifier) {
        StoreElection election = Baton.election(store).group(lockName).config(config)
                .node(NodeInfo.create(identifier)).sessions(false).build();
        return new MasterElection(election, identifier);
    }

    /** Seed vocabulary over a store election built elsewhere: the seed's registry calls need the store's. */
    public static MasterElection over(StoreElection election) {
        return new MasterElection(election, election.membership().self().identifier());
    }

    /** The underlying election, for the parts of Baton the seed has no words for (terms, fencing). */
    public StoreElection election() {
        return election;
    }

    // ---------------------------------------------------------------- lifecycle

    /** Starts the election; the future completes when the first round has resolved. */
    public CompletableFuture<Void> start() {
        election.start();
        return election.whenElected().thenApply(isMaster -> null);
    }

    /** Stops the election: a master releases the lock, this process leaves the registry. */
    public CompletableFuture<Void> stop() {
        return election.closeAsync();
    }

    /**
     * Waits for the election to complete.
     *
     * @return a future of whether this process is master; it fails with {@link TimeoutException} after
     *         {@code timeoutMs}
     */
    public CompletableFuture<Boolean> waitForElectionComplete(long timeoutMs) {
        return election.whenElected().orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .thenApply(firstOutcome -> election.isLeader());
    }

    /** {@link #waitForElectionComplete(long)} with the seed's default of 30 s. */
    public CompletableFuture<Boolean> waitForElectionComplete() {
        return waitForElectionComplete(30_000);
    }

    // ---------------------------------------------------------------- status

    public boolean getIsMaster() {
        return election.isLeader();
    }

    public String getNodeId() {
        return election.nodeId();
    }

    public String getIdentifier() {
        return identifier;
    }

    /** Replaces this process's metadata; it reaches the registry at once and with every heartbeat. */
    public void setMetadata(Map<String, String> metadata) {
        election.membership().setMetadata(metadata);
    }

    public Map<String, String> getMetadata() {
        return election.membership().self().metadata();
    }

    // ---------------------------------------------------------------- process registry

    /** Registers a process with the registry TTL (seed: 45 s). */
    public CompletableFuture<Void> registerProcess(ProcessInfo processInfo) {
        return election.membership().register(processInfo.toNode(identifier));
    }

    /** Renews a process's TTL in one store round trip. Completes with whether the process was still registered. */
    public CompletableFuture<Boolean> updateProcessHeartbeat(String processId) {
        return election.membership().heartbeat(processId);
    }

    /** Every live process; expired entries are never returned. */
    public CompletableFuture<List<ProcessInfo>> getAllProcesses() {
        return election.membership().members().thenApply(MasterElection::processes);
    }

    /** The master's process info, or empty when there is no master. */
    public CompletableFuture<Optional<ProcessInfo>> getMasterProcess() {
        return election.membership().leaderInfo().thenApply(info -> info.map(ProcessInfo::of));
    }

    /** Live processes with {@code role}: {@code "master"} or {@code "slave"}. */
    public CompletableFuture<List<ProcessInfo>> getProcessesByRole(String role) {
        return election.membership().byRole(Role.parse(role)).thenApply(MasterElection::processes);
    }

    public CompletableFuture<Boolean> unregisterProcess(String processId) {
        return election.membership().unregister(processId);
    }

    // ---------------------------------------------------------------- slaves

    public CompletableFuture<List<SlaveNode>> getSlaves() {
        return election.membership().followers().thenApply(all -> all.stream().map(SlaveNode::of).toList());
    }

    public CompletableFuture<Optional<SlaveNode>> getSlave(String nodeId) {
        return election.membership().member(nodeId)
                .thenApply(node -> node.filter(n -> n.role() == Role.FOLLOWER).map(SlaveNode::of));
    }

    public CompletableFuture<Integer> getSlaveCount() {
        return getSlaves().thenApply(List::size);
    }

    // ---------------------------------------------------------------- events

    /** Subscribes to the seed's seven events. */
    public Registration addListener(MasterElectionListener listener) {
        return election.addListener(event -> dispatch(event, listener));
    }

    private static void dispatch(ElectionEvent event, MasterElectionListener listener) {
        if (event instanceof ElectionEvent.LeadershipAcquired) {
            listener.onMasterAcquired();
        } else if (event instanceof ElectionEvent.LeadershipLost) {
            listener.onMasterLost();
        } else if (event instanceof ElectionEvent.ElectionStarted) {
            listener.onElectionStarted();
        } else if (event instanceof ElectionEvent.ElectionCompleted completed) {
            listener.onElectionCompleted(completed.leader());
        } else if (event instanceof ElectionEvent.MemberJoined joined) {
            listener.onSlaveRegistered(SlaveNode.of(joined.member()));
        } else if (event instanceof ElectionEvent.MemberRemoved removed) {
            listener.onSlaveRemoved(removed.nodeId());
        } else if (event instanceof ElectionEvent.ElectionError error) {
            listener.onError(error.cause() != null ? error.cause() : new StoreException(error.message()));
        }
    }

    private static List<ProcessInfo> processes(List<NodeInfo> nodes) {
        return nodes.stream().map(ProcessInfo::of).toList();
    }
}
