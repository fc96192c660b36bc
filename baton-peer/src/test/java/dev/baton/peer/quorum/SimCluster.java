package dev.baton.peer.quorum;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.ElectionEvent.LeadershipAcquired;
import dev.baton.core.MemberState;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.MemberCard;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.sim.NodeScheduler;
import dev.baton.peer.sim.SimulatedNetwork;
import dev.baton.peer.testing.ValidityReports;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.peer.transport.Transport;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Quorum nodes on one {@link SimulatedNetwork}, one {@link DeterministicScheduler} and one {@link FakeClock}, every
 * random choice derived from one seed. Nodes can crash with or without their saved state and restart. By default a
 * node keeps its votes in an {@link InMemoryDurableState} (saved inline); {@link #onDisks()} gives new nodes a
 * {@link SimulatedDisk} instead, saved through the group-commit driver of a node with a data directory, whose writes
 * take 0.1-2 ms of virtual time each and die with the process.
 */
final class SimCluster {

    static {
        // Thousands of schedules lose leaderships on purpose; keep the test output readable.
        System.setProperty("org.slf4j.simpleLogger.log.dev.baton.peer.quorum", "error");
    }

    static final String GROUP = "sim";

    final long seed;
    final FakeClock clock = new FakeClock();
    final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    final Random random;
    final SimulatedNetwork<QuorumMessage> network;
    final QuorumConfig config;
    final List<PeerAddress> addresses = new ArrayList<>();
    final Map<PeerAddress, Node> nodes = new LinkedHashMap<>();
    /** Told, on the scheduler, at the moment a node is told it leads (before anything else runs). */
    final List<BiConsumer<Node, LeadershipAcquired>> grants = new CopyOnWriteArrayList<>();
    // Drawn apart from random, so that clusters in memory replay as they did before disks existed.
    private final Random diskSeeds;
    private boolean disks;

    /** One node's current incarnation. */
    final class Node {
        final PeerAddress address;
        final DurableState state;
        final int incarnation;
        final NodeScheduler nodeScheduler;
        final QuorumElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        /** Every deadline this incarnation's leaderships counted themselves valid to. */
        final ValidityReports validity = new ValidityReports(clock);
        private final Random writeTimes;
        boolean crashed;

        Node(PeerAddress address, DurableState state, Transport<QuorumMessage> transport, int incarnation) {
            this.address = address;
            this.state = state;
            this.incarnation = incarnation;
            this.nodeScheduler = new NodeScheduler(scheduler);
            this.writeTimes = new Random(diskSeeds.nextLong());
            this.election = new QuorumElection(GROUP, new MemberCard(address.host(), null, Capabilities.DEFAULT,
                    Map.of()), config, transport, state, this::driver, clock, nodeScheduler,
                    new Random(random.nextLong()), Runnable::run, validity, null);
            election.addListener(event -> {
                events.add(event);
                if (event instanceof LeadershipAcquired acquired) {
                    grants.forEach(g -> g.accept(this, acquired));
                }
            });
            validity.watch(election);
        }

        /** A simulated disk's node gets the group-commit driver, its writes timed tasks of this process. */
        private Effects driver(DurableState durable, Transport<QuorumMessage> transport, Scheduler process,
                String name, Consumer<RuntimeException> onWriteFailure) {
            if (!(durable instanceof SimulatedDisk)) {
                return Effects.forState(durable, transport, process, name, onWriteFailure);
            }
            GroupCommitWriter writer = new GroupCommitWriter(durable, name, write -> process.schedule(
                    Duration.ofNanos(100_000 + writeTimes.nextInt(1_900_000)), write), () -> { });
            return new DurableFirstEffects(writer, transport, process, onWriteFailure);
        }

        QuorumNode node() {
            return election.node();
        }

        boolean live() {
            return !crashed;
        }

        /** Running, but stopped taking part because a save failed: it must be restarted. */
        boolean stopped() {
            return !crashed && node().phase() == QuorumNode.Phase.STOPPED;
        }

        /** The node's simulated disk, or null if it keeps its votes in memory. */
        SimulatedDisk disk() {
            return state instanceof SimulatedDisk disk ? disk : null;
        }

        /** What identifies the saved state this node runs on: a new one after a start without it or a torn write. */
        Object lineage() {
            return state instanceof SimulatedDisk disk ? disk.lineage() : state;
        }

        /** The highest version in the newest state whose save returned: the node may have sent votes on it. */
        long acknowledgedHighest() {
            return state instanceof SimulatedDisk disk ? disk.acknowledgedHighest()
                    : state.load().map(AcceptorState::highestVersion).orElse(0L);
        }

        <T extends ElectionEvent> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return address + (crashed ? "(crashed)" : "") + " " + node();
        }
    }

    SimCluster(long seed, int size, int seeds, QuorumConfig.Builder timing, LinkConditions link,
            boolean withCodec) {
        this.seed = seed;
        this.random = new Random(seed);
        this.diskSeeds = new Random(seed ^ 0x5EED_D15CL);
        SimulatedNetwork.Builder<QuorumMessage> builder = SimulatedNetwork.<QuorumMessage>builder(scheduler, clock,
                new Random(random.nextLong())).defaultLink(link);
        if (withCodec) {
            builder.codec(Quorum.codec());
        }
        this.network = builder.build();
        for (int i = 1; i <= size; i++) {
            addresses.add(PeerAddress.of("n" + i, 7400));
        }
        this.config = timing.clusterSize(size).seeds(addresses.subList(0, seeds)).build();
    }

    /** Creates and starts every node. */
    SimCluster startAll() {
        for (PeerAddress address : addresses) {
            start(address);
        }
        return this;
    }

    /** Gives every node started from now on without a given state a {@link SimulatedDisk}. */
    SimCluster onDisks() {
        disks = true;
        return this;
    }

    /** An empty state: in memory, or on a simulated disk after {@link #onDisks()}. */
    DurableState emptyState() {
        return disks ? new SimulatedDisk(diskSeeds.nextLong()) : new InMemoryDurableState();
    }

    Node start(PeerAddress address) {
        return start(address, emptyState());
    }

    /** Starts a node on {@code state}; a state holding {@link AcceptorState#INITIAL} needs no recovery. */
    Node start(PeerAddress address, DurableState state) {
        Node node = new Node(address, state, network.transport(address), 1);
        nodes.put(address, node);
        node.election.start();
        return node;
    }

    /** A state that says "recovered, nothing seen yet": a node on it votes without recovering first. */
    static InMemoryDurableState savedState() {
        InMemoryDurableState state = new InMemoryDurableState();
        state.store(AcceptorState.INITIAL);
        return state;
    }

    /** Starts every listed node (1-based) on a saved state, so that none has to recover. */
    SimCluster startWithState(int... indexes) {
        for (int index : indexes) {
            start(addresses.get(index - 1), savedState());
        }
        return this;
    }

    /** Records every message handed to the network: (from, to, message), in order. */
    List<NetworkEvent.Sent<QuorumMessage>> recordSent() {
        List<NetworkEvent.Sent<QuorumMessage>> sent = new CopyOnWriteArrayList<>();
        network.addListener(event -> {
            if (event instanceof NetworkEvent.Sent<QuorumMessage> s) {
                sent.add(s);
            }
        });
        return sent;
    }

    Node node(int index) {
        return nodes.get(addresses.get(index - 1));
    }

    Node node(PeerAddress address) {
        return nodes.get(address);
    }

    List<Node> live() {
        return nodes.values().stream().filter(Node::live).collect(Collectors.toList());
    }

    /** Crashes the node: it stops at once, sends nothing more, and messages to it are lost. */
    void crash(PeerAddress address) {
        crash(address, SimulatedDisk.CrashFault.NONE);
    }

    /**
     * Crashes the node, and {@code fault} strikes the last record its simulated disk wrote; returns whether it did
     * (a node in memory, or one that wrote nothing since it started, has nothing to strike).
     */
    boolean crash(PeerAddress address, SimulatedDisk.CrashFault fault) {
        Node node = nodes.get(address);
        if (node == null || node.crashed) {
            return false;
        }
        node.crashed = true;
        node.nodeScheduler.crash();
        network.crash(address);
        return node.disk() != null && node.disk().crash(fault);
    }

    /** Restarts a node, with the state it saved or (a lost disk) without it. */
    Node restart(PeerAddress address, boolean keepState) {
        Node old = nodes.get(address);
        crash(address);
        DurableState state = keepState && old != null ? old.state : emptyState();
        Node node = new Node(address, state, network.restart(address), old == null ? 1 : old.incarnation + 1);
        nodes.put(address, node);
        node.election.start();
        return node;
    }

    void advance(Duration duration) {
        scheduler.advance(duration);
    }

    /** Advances in steps, running {@code check} after each. */
    void advance(Duration duration, Duration step, Runnable check) {
        long end = clock.nanoTime() + duration.toNanos();
        while (clock.nanoTime() < end) {
            long left = end - clock.nanoTime();
            scheduler.advance(Duration.ofNanos(Math.min(step.toNanos(), left)));
            check.run();
        }
    }

    /** Advances in small steps until {@code condition} holds, failing after {@code limit}. */
    void advanceUntil(Duration limit, java.util.function.BooleanSupplier condition) {
        long end = clock.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (clock.nanoTime() >= end) {
                throw new AssertionError("condition not met within " + limit + "\n" + describe());
            }
            scheduler.advance(Duration.ofMillis(1));
        }
    }

    /** The live nodes that hold a valid leadership right now. */
    List<Node> leaders() {
        return live().stream().filter(n -> n.election.isLeader()).collect(Collectors.toList());
    }

    /** The only valid leader, failing if there is none or more. */
    Node leader() {
        List<Node> leaders = leaders();
        if (leaders.size() != 1) {
            throw new AssertionError("expected one leader, found " + leaders + " (seed " + seed + ")\n" + describe());
        }
        return leaders.get(0);
    }

    /** The state the current leader's table gives {@code address}. */
    MemberState stateOf(PeerAddress address) {
        return leader().node().tableState(address);
    }

    String describe() {
        StringBuilder text = new StringBuilder("at " + clock.elapsed() + ":\n");
        for (Node node : nodes.values()) {
            text.append("  ").append(node).append('\n');
        }
        return text.toString();
    }
}
