package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.support.Environment;
import dev.baton.core.Capabilities;
import dev.baton.core.ElectionEvent;
import dev.baton.core.MemberState;
import dev.baton.core.MemberStatus;
import dev.baton.core.NodeInfo;
import dev.baton.core.memory.InMemoryStore;
import dev.baton.peer.MemberCard;
import dev.baton.peer.bully.Bully;
import dev.baton.peer.bully.BullyConfig;
import dev.baton.peer.bully.BullyElection;
import dev.baton.peer.bully.BullyMessage;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.sim.NetworkListener;
import dev.baton.peer.sim.SimulatedNetwork;
import dev.baton.peer.transport.MessageCodec;
import dev.baton.peer.transport.NettyTransport;
import dev.baton.peer.transport.PeerAddress;
import dev.baton.testkit.DeterministicScheduler;
import dev.baton.testkit.FakeClock;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The all-to-all failure detector's cost (issue 7): once a bully group of N nodes has settled (one leader, every
 * member active, the hold-down over), the messages and bytes each node sends per ping interval, on the simulated
 * network, for N = 5, 25, 50, beside the quorum protocol's per heartbeat interval at the same N. Then the same
 * groups on real TCP in this one JVM (N = 5, 10, 25, 50, 75, 100, each node with its own Netty event loop and
 * state-machine thread): does the detector keep its timing, i.e. do its pings still arrive in time so that nobody is
 * suspected and the leadership stays put?
 */
public final class BullyMessagesScenario implements Scenario {

    private static final int[] SIMULATED = {5, 25, 50};
    private static final int[] REAL = {5, 10, 25, 50, 75, 100};
    private static final int QUORUM_SEEDS = 3;
    /** Bytes TCP framing adds to every message: a 4-byte length and a 1-byte frame type (docs/peer.md). */
    private static final int FRAME_HEADER = 5;
    private static final LinkConditions LINK = LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(5));
    private static final String GROUP = "bench-bully-messages";

    /** Counts messages and encoded bytes per sender. */
    private static final class Meter<M> implements NetworkListener<M> {
        private final MessageCodec<M> codec;
        final Map<PeerAddress, long[]> perNode = new HashMap<>();

        Meter(MessageCodec<M> codec) {
            this.codec = codec;
        }

        @Override
        public void onEvent(NetworkEvent<M> event) {
            if (event instanceof NetworkEvent.Sent<M> sent) {
                long[] counts = perNode.computeIfAbsent(sent.from(), a -> new long[2]);
                counts[0]++;
                counts[1] += codec.encode(sent.message()).length + FRAME_HEADER;
            }
        }

        /** msgs and bytes per interval: the leader's, the others' mean and max. */
        double[] rates(PeerAddress leader, List<PeerAddress> all, int intervals) {
            double[] result = new double[6];
            for (PeerAddress address : all) {
                long[] counts = perNode.getOrDefault(address, new long[2]);
                double msgs = (double) counts[0] / intervals;
                double bytes = (double) counts[1] / intervals;
                if (address.equals(leader)) {
                    result[0] = msgs;
                    result[1] = bytes;
                } else {
                    result[2] += msgs / (all.size() - 1);
                    result[3] += bytes / (all.size() - 1);
                    result[4] = Math.max(result[4], msgs);
                    result[5] = Math.max(result[5], bytes);
                }
            }
            return result;
        }
    }

    @Override
    public String name() {
        return "bully-messages";
    }

    @Override
    public String description() {
        return "bully group, simulated N = 5, 25, 50: messages per node per ping interval (quorum beside it); real TCP"
                + " N = 5-100 in one JVM: does the detector keep its timing";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int intervals = options.n(100);
        long seed = options.seed();
        BullyConfig bully = BullyConfig.fast().build();
        out.println("## Bully protocol: the failure detector's messages (`bully-messages`)");
        out.println();
        out.println(Environment.machine() + ". Virtual time on `SimulatedNetwork` (links 1-5 ms, no loss, fast"
                + " profiles: pingInterval 100 ms, heartbeatInterval 100 ms), seed " + seed + ". A bully group"
                + " starts node by node on an in-memory leader store, settles, runs past the hold-down (the highest"
                + " process takes over) and settles again; a quorum cluster (" + QUORUM_SEEDS + " seeds) starts and"
                + " converges. Then every message sent during " + intervals + " intervals is counted. Bytes: the"
                + " JSON payload of the production codec plus the 5-byte frame header, per message.");
        out.println();
        MarkdownTable table = new MarkdownTable("N", "bully leader msgs", "bully member msgs mean",
                "bully member msgs max", "bully member bytes mean", "bully group msgs", "2(N-1)",
                "quorum follower msgs mean", "quorum leader msgs", "quorum cluster msgs");
        for (int size : SIMULATED) {
            double[] b = simulatedBully(size, bully, intervals, seed);
            double[] q = simulatedQuorum(size, intervals, seed);
            table.row(String.valueOf(size), decimal(b[0]), decimal(b[2]), decimal(b[4]), decimal(b[3]),
                    decimal(b[0] + b[2] * (size - 1)), String.valueOf(2 * (size - 1)), decimal(q[2]), decimal(q[0]),
                    decimal(q[0] + q[2] * (size - 1)));
            System.err.printf("bully-messages N=%d: bully member %.2f msgs/interval, quorum follower %.2f%n", size,
                    b[2], q[2]);
        }
        out.println("Per interval (100 ms), steady state:");
        out.println();
        out.println(table.render());
        out.println("Every bully member sends N - 1 pings and answers N - 1 pings per interval: 2(N - 1) messages,"
                + " 2N(N - 1) for the group; the leader sends the same. A quorum follower sends one keep-alive (a seed"
                + " also answers the leader's seed keep-alive), its leader one acknowledgement per member.");
        out.println();

        out.println("Real TCP, one JVM: N `Bully.tcp` nodes on 127.0.0.1 (one Netty event loop, one state-machine"
                + " thread and one event thread each; all N nodes share the machine's cores), an in-memory"
                + " leader store, fast profile. Each group starts, settles and passes the hold-down; then for "
                + "10 s: members suspected (`UNREACHABLE`) and leaderships acquired, and the messages each node sent"
                + " (transport counters) per ping interval.");
        out.println();
        MarkdownTable real = new MarkdownTable("N", "settled after", "suspected in 10 s", "leaderships in 10 s",
                "msgs per node per interval", "expected 2(N-1)", "keeps its timing");
        for (int size : REAL) {
            String[] row = realGroup(size, bully, Duration.ofSeconds(10));
            real.row(row);
            System.err.println("bully-messages real N=" + size + ": " + String.join(" | ", row));
        }
        out.println(real.render());
    }

    private static double[] simulatedBully(int size, BullyConfig config, int intervals, long seed) {
        FakeClock clock = new FakeClock();
        DeterministicScheduler scheduler = new DeterministicScheduler(clock);
        Random random = new Random(seed);
        SimulatedNetwork<BullyMessage> network = SimulatedNetwork.<BullyMessage>builder(scheduler, clock,
                new Random(random.nextLong())).defaultLink(LINK).build();
        InMemoryStore store = new InMemoryStore();
        List<PeerAddress> addresses = new ArrayList<>();
        List<BullyElection> elections = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            PeerAddress address = PeerAddress.of("n" + i, 7400);
            addresses.add(address);
            BullyElection election = new BullyElection(GROUP, new MemberCard("n" + i, null, Capabilities.DEFAULT,
                    Map.of()), config, network.transport(address), store.leaderRecords(), false, clock, scheduler,
                    new Random(random.nextLong()), Runnable::run, null);
            elections.add(election);
            election.start();
            advanceUntil(scheduler, clock, Duration.ofSeconds(30), () -> election.leader().isPresent());
        }
        scheduler.advance(config.holdDown().plus(Duration.ofSeconds(1)));
        BullyElection leader = advanceUntil(scheduler, clock, Duration.ofSeconds(30),
                () -> settled(elections, scheduler));
        Meter<BullyMessage> meter = new Meter<>(Bully.codec());
        network.addListener(meter);
        scheduler.advance(config.pingInterval().multipliedBy(intervals));
        network.removeListener(meter);
        if (settled(elections, scheduler) != leader) {
            throw new IllegalStateException("the " + size + "-node bully group changed leader while measured");
        }
        return meter.rates(leader.address(), addresses, intervals);
    }

    private static double[] simulatedQuorum(int size, int intervals, long seed) {
        SimulatedQuorum cluster = new SimulatedQuorum(size, QUORUM_SEEDS, QuorumConfig.fast(), LINK, seed);
        cluster.startAll(true, cluster.config().heartbeatInterval());
        Duration ttl = cluster.config().ttlTimeout();
        if (cluster.advanceUntilConverged(ttl.multipliedBy(10), Duration.ofMillis(10)).isEmpty()) {
            throw new IllegalStateException("the " + size + "-node quorum cluster did not converge");
        }
        cluster.advance(ttl.multipliedBy(3));
        QuorumElection leader = cluster.soleLeader()
                .orElseThrow(() -> new IllegalStateException("no single quorum leader after settling"));
        Meter<QuorumMessage> meter = new Meter<>(Quorum.codec());
        cluster.network().addListener(meter);
        cluster.advance(cluster.config().heartbeatInterval().multipliedBy(intervals));
        cluster.network().removeListener(meter);
        return meter.rates(leader.address(), cluster.addresses(), intervals);
    }

    /** The leader if exactly one node leads, every node follows it and its table has every node ACTIVE; else null. */
    private static BullyElection settled(List<BullyElection> elections, DeterministicScheduler scheduler) {
        BullyElection leader = null;
        for (BullyElection election : elections) {
            if (election.isLeader()) {
                if (leader != null) {
                    return null;
                }
                leader = election;
            }
        }
        if (leader == null) {
            return null;
        }
        String id = leader.nodeId();
        for (BullyElection election : elections) {
            if (election.leader().map(l -> !l.nodeId().equals(id)).orElse(true)) {
                return null;
            }
        }
        CompletableFuture<List<MemberStatus>> members = leader.status().thenApply(s -> s.members());
        scheduler.runUntilIdle();
        long active = members.join().stream().filter(m -> m.state() == MemberState.ACTIVE).count();
        return active == elections.size() ? leader : null;
    }

    private static <T> T advanceUntil(DeterministicScheduler scheduler, FakeClock clock, Duration limit,
            java.util.function.Supplier<T> condition) {
        long end = clock.nanoTime() + limit.toNanos();
        while (clock.nanoTime() < end) {
            T value = condition.get();
            if (value != null && !Boolean.FALSE.equals(value)) {
                return value;
            }
            scheduler.advance(Duration.ofMillis(10));
        }
        throw new IllegalStateException("not reached within " + limit);
    }

    /** One real-TCP group of {@code size}: the row of the table. */
    private static String[] realGroup(int size, BullyConfig config, Duration window) throws Exception {
        List<BullyElection> elections = new ArrayList<>();
        List<NettyTransport<BullyMessage>> transports = new ArrayList<>();
        AtomicInteger suspected = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        try (InMemoryStore store = new InMemoryStore()) {
            long start = System.nanoTime();
            for (int i = 0; i < size; i++) {
                NettyTransport<BullyMessage> transport = NettyTransport.builder(Bully.codec())
                        .listen(PeerAddress.of("127.0.0.1", freePort())).clusterName(GROUP).build();
                transports.add(transport);
                BullyElection election = Bully.election(transport).group(GROUP).config(config).leaderStore(store
                        .leaderRecords())
                        .node(NodeInfo.of("ignored", "n" + i)).build();
                transport.start();
                election.addListener(event -> {
                    if (event instanceof ElectionEvent.MemberStateChanged c && c.to() == MemberState.UNREACHABLE) {
                        suspected.incrementAndGet();
                    } else if (event instanceof ElectionEvent.LeadershipAcquired) {
                        acquired.incrementAndGet();
                    }
                }, Runnable::run);
                elections.add(election);
                election.start();
            }
            BullyElection leader = awaitSettled(elections, Duration.ofSeconds(120));
            Duration settledAfter = Duration.ofNanos(System.nanoTime() - start);
            if (leader == null) {
                return new String[] {String.valueOf(size), "not within 120 s", "—", "—", "—",
                    String.valueOf(2 * (size - 1)), "no"};
            }
            Thread.sleep(config.holdDown().plusSeconds(1).toMillis());
            leader = awaitSettled(elections, Duration.ofSeconds(60));
            if (leader == null) {
                return new String[] {String.valueOf(size), "unsettled after the hold-down", "—", "—", "—",
                    String.valueOf(2 * (size - 1)), "no"};
            }
            long sentBefore = sent(transports);
            suspected.set(0);
            acquired.set(0);
            long measureStart = System.nanoTime();
            Thread.sleep(window.toMillis());
            double seconds = (System.nanoTime() - measureStart) / 1e9;
            long sentDuring = sent(transports) - sentBefore;
            double perInterval = sentDuring / (double) size / (seconds * 1000.0 / config.pingInterval().toMillis());
            boolean kept = suspected.get() == 0 && acquired.get() == 0 && leader.isLeader();
            return new String[] {String.valueOf(size), String.format(Locale.ROOT, "%.1f s", settledAfter.toMillis()
                    / 1000.0), String.valueOf(suspected.get()), String.valueOf(acquired.get()), decimal(perInterval),
                String.valueOf(2 * (size - 1)), kept ? "yes" : "no"};
        } finally {
            for (BullyElection election : elections) {
                election.closeAsync();
            }
            for (BullyElection election : elections) {
                election.close();
            }
            transports.forEach(NettyTransport::close);
        }
    }

    private static long sent(List<NettyTransport<BullyMessage>> transports) {
        long total = 0;
        for (NettyTransport<BullyMessage> transport : transports) {
            total += transport.stats().messagesSent();
        }
        return total;
    }

    /** The leader once the group has settled (one leader, followed by all, all ACTIVE), or null after {@code limit}. */
    private static BullyElection awaitSettled(List<BullyElection> elections, Duration limit) throws Exception {
        long end = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < end) {
            BullyElection leader = null;
            int leading = 0;
            for (BullyElection election : elections) {
                if (election.isLeader()) {
                    leader = election;
                    leading++;
                }
            }
            if (leading == 1) {
                String id = leader.nodeId();
                boolean all = elections.stream().allMatch(e -> e.leader().map(l -> l.nodeId().equals(id))
                        .orElse(false));
                if (all && active(leader) == elections.size()) {
                    return leader;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return null;
    }

    /** The members the leader's table has ACTIVE; -1 if its state machine is too busy to answer within 5 s. */
    private static long active(BullyElection leader) throws InterruptedException {
        try {
            return leader.status().get(5, TimeUnit.SECONDS).members().stream()
                    .filter(m -> m.state() == MemberState.ACTIVE).count();
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String decimal(double value) {
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : "%.2f", value);
    }
}
