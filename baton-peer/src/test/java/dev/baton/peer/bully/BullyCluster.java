package dev.baton.peer.bully;

import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.LeaderInfo;
import dev.baton.core.MemberState;
import dev.baton.core.time.Clock;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.BullyMessage.GroupMember;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Bully nodes on one {@link SimulatedNetwork} and one {@link SimLeaderStore}, on one {@link DeterministicScheduler} and
 * {@link FakeClock}, every random choice derived from one seed. A node can crash and start again (a new process: the
 * protocol keeps nothing on disk, the store is the group's memory).
 */
final class BullyCluster {

    static {
        // Thousands of schedules lose leaderships on purpose; keep the test output readable.
        System.setProperty("org.slf4j.simpleLogger.log.dev.baton.peer.bully", "error");
    }

    static final String GROUP = "sim";

    final long seed;
    /** Wall time starts at 2026-01-01 (a realistic epoch), so terms, at least the wall clock in µs, look real. */
    final FakeClock clock = new FakeClock();
    /** The wall clock in µs since the epoch when the cluster was created: every term claimed is at least this. */
    final long startMicros = micros(clock.instant());
    /** The clock nodes created from now on use; {@link #wallClockStandsStill()} replaces it. */
    private Clock nodeClock = clock;
    final DeterministicScheduler scheduler = new DeterministicScheduler(clock);
    final Random random;
    final SimulatedNetwork<BullyMessage> network;
    final SimLeaderStore store;
    final BullyConfig config;
    final List<PeerAddress> addresses = new ArrayList<>();
    final Map<PeerAddress, Node> nodes = new LinkedHashMap<>();
    private final List<NodeListener> listeners = new ArrayList<>();
    private int incarnations;

    /** Told of every node incarnation as it is created (before it starts). */
    interface NodeListener {
        void created(Node node);
    }

    /** One process: a node's current incarnation. */
    final class Node {
        final PeerAddress address;
        final int incarnation;
        final NodeScheduler nodeScheduler;
        final BullyElection election;
        final List<ElectionEvent> events = new CopyOnWriteArrayList<>();
        /** Every deadline this process's leaderships counted themselves valid to. */
        final ValidityReports validity = new ValidityReports(clock);
        boolean crashed;

        Node(PeerAddress address, Transport<BullyMessage> transport, int incarnation) {
            this.address = address;
            this.incarnation = incarnation;
            this.nodeScheduler = new NodeScheduler(scheduler);
            this.election = new BullyElection(GROUP, new MemberCard(address.host(), null, Capabilities.DEFAULT,
                    Map.of()), config, transport, store.clientFor(address), false, nodeClock, nodeScheduler,
                    new Random(random.nextLong()), Runnable::run, validity, null);
            election.addListener(events::add);
            validity.watch(election);
        }

        BullyNode node() {
            return election.node();
        }

        boolean live() {
            return !crashed;
        }

        long pid() {
            return node().pid();
        }

        <T extends ElectionEvent> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return address + "#" + incarnation + (crashed ? " (crashed)" : "") + " " + node();
        }
    }

    BullyCluster(long seed, int size, BullyConfig config, LinkConditions link, boolean withCodec) {
        this.seed = seed;
        this.random = new Random(seed);
        this.config = config;
        SimulatedNetwork.Builder<BullyMessage> builder = SimulatedNetwork.<BullyMessage>builder(scheduler, clock,
                new Random(random.nextLong())).defaultLink(link);
        if (withCodec) {
            builder.codec(Bully.codec());
        }
        this.network = builder.build();
        this.store = new SimLeaderStore(scheduler, new Random(random.nextLong()));
        for (int i = 1; i <= size; i++) {
            addresses.add(PeerAddress.of("n" + i, 7400));
        }
    }

    /**
     * Nodes created from now on see a wall clock that stands still at the cluster's start (monotonic time still
     * runs): their terms then come from the store's and their own counters alone, as on a machine whose clock
     * stepped back, which is what a test of the compare-and-set without the clock's help needs.
     */
    void wallClockStandsStill() {
        Instant frozen = clock.instant();
        nodeClock = new Clock() {
            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public Instant instant() {
                return frozen;
            }
        };
    }

    /** The simulated wall clock now, in µs since the epoch: the least term a claim made now can take. */
    long wallMicros() {
        return micros(clock.instant());
    }

    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }

    /** A cluster of {@code size} nodes with the fast timings and 1-3 ms links. */
    static BullyCluster fast(long seed, int size) {
        return with(seed, size, BullyConfig.fast().build());
    }

    /** A cluster of {@code size} nodes with the given timings and 1-3 ms links. */
    static BullyCluster with(long seed, int size, BullyConfig config) {
        return new BullyCluster(seed, size, config, LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(3)),
                true);
    }

    void onCreate(NodeListener listener) {
        listeners.add(listener);
    }

    PeerAddress address(int index) {
        return addresses.get(index - 1);
    }

    Node node(int index) {
        return nodes.get(address(index));
    }

    Node node(PeerAddress address) {
        return nodes.get(address);
    }

    /** Creates and starts a node (a new process on that address). */
    Node start(PeerAddress address) {
        Node old = nodes.get(address);
        Transport<BullyMessage> transport = old == null ? network.transport(address) : network.restart(address);
        Node node = new Node(address, transport, ++incarnations);
        nodes.put(address, node);
        listeners.forEach(l -> l.created(node));
        node.election.start();
        return node;
    }

    Node start(int index) {
        return start(address(index));
    }

    /** Starts every node at once. */
    BullyCluster startAll() {
        addresses.forEach(this::start);
        return this;
    }

    /** Starts the nodes one after the other, each once the one before has joined (or founded the group). */
    BullyCluster startInOrder() {
        for (PeerAddress address : addresses) {
            Node node = start(address);
            advanceUntil(Duration.ofSeconds(30), () -> node.node().phase() == BullyNode.Phase.FOLLOWING
                    || node.election.isLeader());
        }
        return this;
    }

    /**
     * Lets the group reach its steady state: past the hold-down (the highest process has taken over) and settled.
     * Returns the leader.
     */
    Node steady() {
        advance(config.holdDown().plus(config.pingInterval().multipliedBy(5)));
        advanceUntil(Duration.ofSeconds(5), this::settled);
        return leader();
    }

    /** Crashes the process: it stops at once, sends nothing more, and messages to it are lost. */
    void crash(PeerAddress address) {
        Node node = nodes.get(address);
        if (node == null || node.crashed) {
            return;
        }
        node.crashed = true;
        node.nodeScheduler.crash();
        network.crash(address);
    }

    /** Crashes the process if it runs and starts a new one on the same address. */
    Node restart(PeerAddress address) {
        crash(address);
        return start(address);
    }

    List<Node> live() {
        return nodes.values().stream().filter(Node::live).collect(Collectors.toList());
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

    /** Advances in 1 ms steps until {@code condition} holds, failing after {@code limit}. */
    Duration advanceUntil(Duration limit, BooleanSupplier condition) {
        long start = clock.nanoTime();
        long end = start + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (clock.nanoTime() >= end) {
                throw new AssertionError("condition not met within " + limit + " (seed " + seed + ")\n" + describe());
            }
            scheduler.advance(Duration.ofMillis(1));
        }
        return Duration.ofNanos(clock.nanoTime() - start);
    }

    /** The live nodes that hold a valid leadership now. */
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

    /**
     * The group has settled: exactly one valid leader, the store names it with its term, every live node follows it
     * under that term, and its table has every live node, active, under the process id the node holds.
     */
    boolean settled() {
        List<Node> leaders = leaders();
        if (leaders.size() != 1) {
            return false;
        }
        Node leader = leaders.get(0);
        long term = leader.node().term();
        Optional<dev.baton.core.store.LeaderRecord> record = store.record();
        if (record.isEmpty() || record.get().term() != term
                || !record.get().leaderId().equals(leader.address.format())) {
            return false;
        }
        Map<PeerAddress, GroupMember> table = leader.node().members().stream()
                .collect(Collectors.toMap(GroupMember::address, m -> m));
        for (Node node : live()) {
            Optional<LeaderInfo> known = node.election.leader();
            if (known.isEmpty() || !known.get().nodeId().equals(leader.address.format())
                    || known.get().term() != term) {
                return false;
            }
            GroupMember entry = table.get(node.address);
            if (entry == null || entry.state() != MemberState.ACTIVE || entry.pid() != node.pid()) {
                return false;
            }
        }
        return table.size() == live().size();
    }

    /** Records every message handed to the network, in order. */
    List<NetworkEvent.Sent<BullyMessage>> recordSent() {
        List<NetworkEvent.Sent<BullyMessage>> sent = new CopyOnWriteArrayList<>();
        network.addListener(event -> {
            if (event instanceof NetworkEvent.Sent<BullyMessage> s) {
                sent.add(s);
            }
        });
        return sent;
    }

    String describe() {
        StringBuilder text = new StringBuilder("at " + clock.elapsed().toMillis() + " ms, store "
                + store.record().map(Object::toString).orElse("empty") + ":\n");
        for (Node node : nodes.values()) {
            text.append("  ").append(node).append('\n');
        }
        return text.toString();
    }
}
