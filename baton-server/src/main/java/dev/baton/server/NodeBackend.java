package dev.baton.server;

import dev.baton.core.Election;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.NodeInfo;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Optional;

/**
 * What a {@code --backend} value opens for one {@code baton node}: the thing its election runs on. Two kinds exist:
 *
 * <ul>
 *   <li><b>store backends</b> ({@code memory}, {@code redis://…}, {@code postgresql://…}): a connected
 *       {@link CoordinationStore}, the lease election on it, and everything else a store offers (fenced registers
 *       and maps, the shared event log, pub/sub). {@link #store()} returns it.</li>
 *   <li><b>serverless backends</b> ({@code quorum}, seed 003's protocol, and {@code bully}): the nodes talk to each
 *       other and share no store. {@link #store()} is empty, so features that need one (the fenced-write loop, the
 *       HTTP work items, the store's event log, the work cluster) are refused or answered from this node's own
 *       state.</li>
 * </ul>
 *
 * <p>Life cycle, driven by {@code RunningNode}: {@link Backends#open(String, BackendSpec)} opens it (connects to the
 * store, or prepares the peer transport; an unreachable store or an unusable setting is a {@link CliError} usage
 * error), then {@link #election} is called exactly once (the election is built, not started; a serverless backend
 * binds its port here, so a port in use is a usage error before the node contends), then the node runs, then the
 * election is closed and after it {@link #close()}, which releases what {@code open} and {@code election} took
 * (connections, sockets, threads). {@code close()} is idempotent and safe when {@code election} was never called.
 *
 * <p>Adding a backend (e.g. {@code --backend bully}): a {@link BackendSpec} record for its validated settings, an
 * implementation of this interface, a branch in {@link Backends#open(String, BackendSpec)}, its flags in
 * {@link NodeCommand} and its fields in {@link EventJson#nodeStarted}. Code that needs a shared store asks
 * {@link #store()} and says plainly when there is none.
 */
interface NodeBackend extends AutoCloseable {

    /**
     * Builds this node's election on the backend; not started. Called once.
     *
     * @param self    this node as the members should see it: its id must be the one the backend uses
     *                ({@link NodeSettings#nodeId()}), with identifier and API address
     * @param metrics where the election reports store calls, renewals and its leaderships' deadlines (serverless
     *                backends report the deadlines only)
     * @param clock   the time source of the node
     * @throws CliError (usage) if the backend cannot run this election, e.g. its peer port is taken
     */
    Election election(NodeInfo self, ElectionMetrics metrics, Clock clock);

    /**
     * Builds one more election of this node, of {@code group}, on the same store and with the same node and timings
     * as {@link #election}, so that it shares the process's store session; not started. For the hidden
     * {@code --chaos-groups}; a serverless backend runs one group and refuses.
     */
    default Election election(String group, NodeInfo self, ElectionMetrics metrics, Clock clock) {
        throw CliError.usage("more than one group per node runs on a store backend only, not on " + describe());
    }

    /** The shared store, for store backends; empty for serverless ones. */
    Optional<CoordinationStore> store();

    /**
     * A register the backend's store fences by term, from the store election {@link #election} built; empty for
     * serverless backends (their elections have no store to fence with) and before {@code election} was called.
     */
    default Optional<FencedRegister> fencedRegister(String name) {
        return Optional.empty();
    }

    /**
     * The backend as the node-started line, the logs and {@code /cluster/status} show it, without secrets: e.g.
     * {@code redis://127.0.0.1:6379/0}, or {@code quorum 127.0.0.1:7401 (cluster of 3)}.
     */
    String describe();

    /** The bound on one call a request of the HTTP API makes to the backend (a status read, a store call). */
    Duration callTimeout();

    /**
     * The switch that cuts this node off from chosen peers, for the fault harness: present only on a serverless
     * backend opened with {@code --chaos-hooks}.
     */
    default Optional<Partitions> partitions() {
        return Optional.empty();
    }

    /**
     * The switch that duplicates, reorders or delays this node's protocol messages, for the fault harness: present
     * only on a serverless backend opened with {@code --chaos-hooks}.
     */
    default Optional<MessageChaos> messageChaos() {
        return Optional.empty();
    }

    /**
     * The faults the harness can put on this node's vote log: present only on {@code quorum} with a data directory,
     * opened with {@code --chaos-hooks}.
     */
    default Optional<VoteLogFaults> voteLogFaults() {
        return Optional.empty();
    }

    /**
     * The straggler the harness can put on this node's own store calls: present only on a store backend opened with
     * {@code --chaos-hooks}.
     */
    default Optional<StoreCallFaults> storeCallFaults() {
        return Optional.empty();
    }

    /** Registers the backend's own meters (e.g. the peer transport's counters) for {@code /metrics}. */
    default void bindMetrics(MeterRegistry registry, Tags tags) {
    }

    /** Releases the connections, sockets and threads the backend holds; after the election closed. Idempotent. */
    @Override
    void close();
}
