package dev.baton.bench.peer;

import dev.baton.core.ClusterStatus;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.peer.quorum.AcceptorState;
import dev.baton.peer.quorum.InMemoryDurableState;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.SimulatedNetwork;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * A quorum cluster of N {@link QuorumElection}s on one {@link SimulatedNetwork} in virtual time (a
 * {@link FakeClock} and a {@link DeterministicScheduler}), every random choice derived from one seed: what the
 * simulated benchmarks ({@code peer-messages}, {@code peer-convergence}) measure. Nothing runs until
 * {@link #advance(Duration)} moves time on, so a run is deterministic and takes no wall-clock time to wait.
 *
 * <p>Nodes are {@code n1:7400} ... {@code nN:7400}; the first {@code seeds} of them are the seeds. Listeners run on the
 * scheduler's thread.
 */
final class SimulatedQuorum {

    static final String GROUP = "bench";

    private final FakeClock clock = new FakeClock();
    private final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    private final SimulatedNetwork<QuorumMessage> network;
    private final QuorumConfig config;
    private final Random random;
    private final List<PeerAddress> addresses = new ArrayList<>();
    private final List<QuorumElection> elections = new ArrayList<>();

    /**
     * @param timing the profile ({@link QuorumConfig#fast()} or {@link QuorumConfig#defaults()}); size and seeds are
     *     set here
     */
    SimulatedQuorum(int size, int seeds, QuorumConfig.Builder timing, LinkConditions link, long seed) {
        this.random = new Random(seed);
        this.network = SimulatedNetwork.<QuorumMessage>builder(scheduler, clock, new Random(random.nextLong()))
                .defaultLink(link)
                .build();
        for (int i = 1; i <= size; i++) {
            addresses.add(PeerAddress.of("n" + i, 7400));
        }
        this.config = timing.clusterSize(size).seeds(addresses.subList(0, Math.min(seeds, size))).build();
    }

    /**
     * Creates and starts every node at the current instant. {@code savedState}: each node starts
     * from a data directory that says "recovered, nothing seen yet" (a cluster restarted from its disks); otherwise
     * each starts with nothing saved (a brand-new cluster), so it must recover before it votes.
     */
    SimulatedQuorum startAll(boolean savedState) {
        return startAll(savedState, Duration.ZERO);
    }

    /**
     * As {@link #startAll(boolean)}, but each node starts at a random instant within {@code spread} from now (real
     * nodes never start in the same nanosecond, and their heartbeats then run out of phase).
     */
    SimulatedQuorum startAll(boolean savedState, Duration spread) {
        for (PeerAddress address : addresses) {
            InMemoryDurableState state = new InMemoryDurableState();
            if (savedState) {
                state.store(AcceptorState.INITIAL);
            }
            elections.add(Quorum.election(network.transport(address))
                    .group(GROUP)
                    .config(config)
                    .node(NodeInfo.of(address.format(), address.host()))
                    .durableState(state)
                    .clock(clock)
                    .scheduler(scheduler)
                    .eventExecutor(Runnable::run)
                    .random(new Random(random.nextLong()))
                    .build());
        }
        for (QuorumElection election : elections) {
            long offset = spread.isZero() ? 0 : (long) (random.nextDouble() * spread.toNanos());
            scheduler.schedule(Duration.ofNanos(offset), election::start);
        }
        scheduler.runUntilIdle();
        return this;
    }

    QuorumConfig config() {
        return config;
    }

    SimulatedNetwork<QuorumMessage> network() {
        return network;
    }

    List<PeerAddress> addresses() {
        return addresses;
    }

    /** Virtual time since the cluster was created. */
    Duration elapsed() {
        return clock.elapsed();
    }

    void advance(Duration duration) {
        scheduler.advance(duration);
    }

    /** The only node holding a valid leadership, if exactly one does. */
    Optional<QuorumElection> soleLeader() {
        QuorumElection found = null;
        for (QuorumElection election : elections) {
            if (election.isLeader()) {
                if (found != null) {
                    return Optional.empty();
                }
                found = election;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * True if exactly one node leads, every node follows it, and its table has every node {@code ACTIVE}: the
     * cluster has converged.
     */
    boolean converged() {
        Optional<QuorumElection> leader = soleLeader();
        if (leader.isEmpty()) {
            return false;
        }
        String id = leader.get().nodeId();
        for (QuorumElection election : elections) {
            if (election.leader().map(info -> !info.nodeId().equals(id)).orElse(true)) {
                return false;
            }
        }
        return activeMembers(leader.get()) == addresses.size();
    }

    /** The members {@code election}'s table has in state {@code ACTIVE} (its status, read on the scheduler). */
    int activeMembers(QuorumElection election) {
        CompletableFuture<ClusterStatus> status = election.status();
        scheduler.runUntilIdle();
        int active = 0;
        for (MemberStatus member : status.join().members()) {
            if (member.state() == MemberState.ACTIVE) {
                active++;
            }
        }
        return active;
    }

    /** How long a cluster took to have its first leader and to converge, from the call. */
    record Convergence(Duration firstLeader, Duration converged) {
    }

    /**
     * Advances in {@code step}s until the cluster has converged; how long it took (and when one node first led), or
     * empty after {@code limit}.
     */
    Optional<Convergence> advanceUntilConverged(Duration limit, Duration step) {
        Duration start = clock.elapsed();
        Duration end = start.plus(limit);
        Duration firstLeader = null;
        while (clock.elapsed().compareTo(end) < 0) {
            advance(step);
            if (firstLeader == null && soleLeader().isPresent()) {
                firstLeader = clock.elapsed().minus(start);
            }
            if (firstLeader != null && converged()) {
                return Optional.of(new Convergence(firstLeader, clock.elapsed().minus(start)));
            }
        }
        return Optional.empty();
    }
}
