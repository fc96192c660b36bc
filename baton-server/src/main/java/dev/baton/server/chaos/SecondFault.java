package dev.baton.server.chaos;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which second fault a multi-fault trial may add to the fault it drew, e.g. a node killed while the store is paused
 * or a node's link to it cut. The second fault is started while the first is active and healed after it.
 *
 * <p>Only faults that start and heal as one step each can be a second fault: a killed, frozen or cut-off node, the
 * store paused or slowed, a link cut or reset, an etcd member killed or frozen, the peers' messages garbled. Restores,
 * failovers, the store-clock faults and {@code replica-restart-empty} (a follower restarted, then the leader killed)
 * run a scripted sequence of their own and are only ever the first fault.
 *
 * <p>Two faults may co-exist only if they touch different {@link Part parts} of the system: a heal undoes everything
 * on its part (healing one link fault heals every link; a node's {@code heal} command lifts every hook fault of that
 * node; a store restart ends a pause), so two faults on one part would heal each other, or one would act on what the
 * other killed. Because the parts are disjoint, neither heal touches the other fault, and healing the first fault as
 * it heals alone and then the second is safe; the second heals last so that the trial's heal time, from which the
 * leader bound counts, is when both are gone. One exception: a second fault on the store heals before a killed node
 * of the first fault starts again, since a node that cannot reach its store when it starts exits.
 *
 * <p>The draws come from a stream of their own ({@link #random}), never from the trial's, so a trial's first fault,
 * its victim and its timings are those it draws without a second fault.
 */
final class SecondFault {

    /** What a fault acts on; a trial's two faults must act on different parts. */
    enum Part {
        /** A node's process: killed, frozen, restarted by the harness. */
        NODE_PROCESS,
        /** A node's --chaos-hooks: partitions, message chaos, held store calls, vote-log faults. */
        NODE_HOOKS,
        /** The nodes' proxied links to the store. */
        STORE_LINKS,
        /** The store's servers, their processes, data, replication and clock. */
        STORE_SERVER
    }

    /** The faults that can be a second fault: each starts in one step and heals in one. */
    static final Set<FaultKind> CAN_BE_SECOND = EnumSet.of(FaultKind.KILL_NODE, FaultKind.PAUSE_NODE,
            FaultKind.PARTITION_ONE, FaultKind.PARTITION_TWO, FaultKind.STORE_PAUSE, FaultKind.STORE_LATENCY,
            FaultKind.STORE_BLACKHOLE, FaultKind.STORE_RESET, FaultKind.ETCD_MEMBER_KILL, FaultKind.ETCD_LEADER_KILL,
            FaultKind.ETCD_LEADER_PAUSE, FaultKind.PEER_MESSAGE_CHAOS);

    /** Mixed into the seed so that the second fault's stream differs from the trial's own. */
    private static final long STREAM = 0x5ec0_7d_fa17L;

    private SecondFault() {
    }

    /** The parts {@code kind} acts on; {@code nodesDown} if the target restarts every node to inject it. */
    static Set<Part> parts(FaultKind kind, boolean nodesDown) {
        Set<Part> parts = EnumSet.noneOf(Part.class);
        if (nodesDown) {
            parts.add(Part.NODE_PROCESS);
        }
        switch (kind) {
            case NONE -> { }
            // replica-restart-empty kills and restarts two nodes' processes: a follower, then the leader.
            case KILL_NODE, PAUSE_NODE, REPLICA_RESTART_EMPTY -> parts.add(Part.NODE_PROCESS);
            case VOTE_LOG_TORN, VOTE_LOG_EIO, PAUSE_AFTER_FENCED_WRITE ->
                    parts.addAll(EnumSet.of(Part.NODE_PROCESS, Part.NODE_HOOKS));
            case PARTITION_ONE, PARTITION_TWO, PEER_MESSAGE_CHAOS, STORE_CALL_STRAGGLER -> parts.add(Part.NODE_HOOKS);
            case STORE_LATENCY, STORE_BLACKHOLE, STORE_RESET, STORE_LINK_STRAGGLER -> parts.add(Part.STORE_LINKS);
            // The link to the etcd leader: which member that is belongs to the store's servers.
            case ETCD_LINK_HELD -> parts.addAll(EnumSet.of(Part.STORE_LINKS, Part.STORE_SERVER));
            // These cut the leader's link while they move the store's clock.
            case STORE_CLOCK_STEP_SMALL, STORE_CLOCK_SKEW, STORE_CLOCK_STEP_LARGE ->
                    parts.addAll(EnumSet.of(Part.STORE_LINKS, Part.STORE_SERVER));
            default -> parts.add(Part.STORE_SERVER);
        }
        return parts;
    }

    /**
     * The faults of {@code faults} (the run's list) that can be added to {@code first}: those that can be a second
     * fault and act on no part {@code first} acts on. {@code nodesDown} says which faults the target injects with every
     * node down ({@link ChaosTarget#needsNodesDown}).
     */
    static List<FaultKind> partners(FaultKind first, List<FaultKind> faults, Predicate<FaultKind> nodesDown) {
        Set<Part> taken = parts(first, nodesDown.test(first));
        return faults.stream().distinct().filter(CAN_BE_SECOND::contains)
                .filter(kind -> parts(kind, nodesDown.test(kind)).stream().noneMatch(taken::contains))
                .toList();
    }

    /**
     * With probability {@code probability}, a partner of {@code first} drawn from {@code random}; empty otherwise,
     * or if {@code first} has no partner in the run's list.
     */
    static Optional<FaultKind> draw(Random random, double probability, FaultKind first, List<FaultKind> faults,
            Predicate<FaultKind> nodesDown) {
        if (probability <= 0 || random.nextDouble() >= probability) {
            return Optional.empty();
        }
        List<FaultKind> partners = partners(first, faults, nodesDown);
        return partners.isEmpty() ? Optional.empty() : Optional.of(partners.get(random.nextInt(partners.size())));
    }

    /** Whether {@code kind} acts on the store's links or servers (a node restarted meanwhile cannot reach it). */
    static boolean actsOnStore(FaultKind kind) {
        Set<Part> parts = parts(kind, false);
        return parts.contains(Part.STORE_LINKS) || parts.contains(Part.STORE_SERVER);
    }

    /** Trial {@code number}'s stream for its second fault: its own, apart from the trial's. */
    static Random random(long seed, int number) {
        return ChaosRun.trialRandom(seed ^ STREAM, number);
    }
}
