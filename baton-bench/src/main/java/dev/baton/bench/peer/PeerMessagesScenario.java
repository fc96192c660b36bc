package dev.baton.bench.peer;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.support.Environment;
import dev.baton.peer.quorum.Quorum;
import dev.baton.peer.quorum.QuorumConfig;
import dev.baton.peer.quorum.QuorumElection;
import dev.baton.peer.quorum.QuorumMessage;
import dev.baton.peer.sim.LinkConditions;
import dev.baton.peer.sim.NetworkEvent;
import dev.baton.peer.sim.NetworkListener;
import dev.baton.peer.transport.JacksonMessageCodec;
import dev.baton.peer.transport.PeerAddress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Steady-state traffic of the quorum protocol on the simulated network: once a cluster of N nodes has converged (one
 * leader, every member active) and settled, the messages and bytes each node sends per heartbeat interval, for the
 * leader and for the other nodes. Followers should send O(1) (one keep-alive; a seed also answers the leader's seed
 * keep-alive), the leader O(N) (one acknowledgement per member, one keep-alive per other seed). Bytes are the JSON
 * payload from the production codec plus the transport's 5-byte frame header (length and type).
 */
public final class PeerMessagesScenario implements Scenario {

    private static final int SEEDS = 3;
    private static final int[] SIZES = {5, 25, 100};
    /** Bytes TCP framing adds to every message: a 4-byte length and a 1-byte frame type (docs/peer.md). */
    private static final int FRAME_HEADER = 5;
    private static final LinkConditions LINK = LinkConditions.delayed(Duration.ofMillis(1), Duration.ofMillis(5));

    /** Counts messages and encoded bytes per sender and per message type. */
    private static final class Meter implements NetworkListener<QuorumMessage> {
        private final JacksonMessageCodec<QuorumMessage> codec = Quorum.codec();
        final Map<PeerAddress, long[]> perNode = new HashMap<>();
        final Map<String, long[]> leaderPerType = new TreeMap<>();
        PeerAddress leader;

        @Override
        public void onEvent(NetworkEvent<QuorumMessage> event) {
            if (event instanceof NetworkEvent.Sent<QuorumMessage> sent) {
                long bytes = codec.encode(sent.message()).length + FRAME_HEADER;
                long[] counts = perNode.computeIfAbsent(sent.from(), a -> new long[2]);
                counts[0]++;
                counts[1] += bytes;
                if (sent.from().equals(leader)) {
                    long[] byType = leaderPerType.computeIfAbsent(sent.message().getClass().getSimpleName(),
                            t -> new long[2]);
                    byType[0]++;
                    byType[1] += bytes;
                }
            }
        }
    }

    @Override
    public String name() {
        return "peer-messages";
    }

    @Override
    public String description() {
        return "simulated quorum cluster, N = 5, 25, 100: messages and bytes per node per heartbeat interval in"
                + " steady state, leader vs followers";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int intervals = options.n(100);
        long seed = options.seed();
        out.println("## Serverless quorum: messages per node per heartbeat interval (`peer-messages`)");
        out.println();
        out.println(Environment.machine() + ". Virtual time on `SimulatedNetwork` (links 1-5 ms, no loss, fast"
                + " profile: heartbeatInterval 100 ms), " + SEEDS + " seeds, seed " + seed + ". Each cluster starts"
                + " (nodes within one heartbeatInterval of each other, from saved state), converges, runs 3 x"
                + " ttlTimeout more, then every message sent during " + intervals
                + " heartbeat intervals is counted. Bytes: the JSON payload of the production codec plus the"
                + " 5-byte frame header, per message; TCP/IP headers not included.");
        out.println();
        MarkdownTable table = new MarkdownTable("N", "leader msgs", "leader bytes", "follower msgs mean",
                "follower msgs max", "follower bytes mean", "follower bytes max", "cluster msgs", "cluster bytes");
        Map<Integer, double[]> design = new TreeMap<>();
        String leaderTypes = "";
        for (int size : SIZES) {
            SimulatedQuorum cluster = new SimulatedQuorum(size, SEEDS, QuorumConfig.fast(), LINK, seed);
            cluster.startAll(true, cluster.config().heartbeatInterval());
            Duration ttl = cluster.config().ttlTimeout();
            if (cluster.advanceUntilConverged(ttl.multipliedBy(10), Duration.ofMillis(10)).isEmpty()) {
                throw new IllegalStateException("the " + size + "-node cluster did not converge");
            }
            cluster.advance(ttl.multipliedBy(3));
            QuorumElection leader = cluster.soleLeader()
                    .orElseThrow(() -> new IllegalStateException("no single leader after settling"));
            Meter meter = new Meter();
            meter.leader = leader.address();
            cluster.network().addListener(meter);
            cluster.advance(cluster.config().heartbeatInterval().multipliedBy(intervals));
            cluster.network().removeListener(meter);
            if (!cluster.converged() || !cluster.soleLeader().map(l -> l == leader).orElse(false)) {
                throw new IllegalStateException("the " + size + "-node cluster changed leader while measured");
            }
            double[] leaderRate = rate(meter.perNode.get(leader.address()), intervals);
            double followerMsgs = 0;
            double followerBytes = 0;
            double maxMsgs = 0;
            double maxBytes = 0;
            long totalMsgs = 0;
            long totalBytes = 0;
            for (PeerAddress address : cluster.addresses()) {
                long[] counts = meter.perNode.getOrDefault(address, new long[2]);
                totalMsgs += counts[0];
                totalBytes += counts[1];
                if (address.equals(leader.address())) {
                    continue;
                }
                double[] r = rate(counts, intervals);
                followerMsgs += r[0];
                followerBytes += r[1];
                maxMsgs = Math.max(maxMsgs, r[0]);
                maxBytes = Math.max(maxBytes, r[1]);
            }
            int followers = size - 1;
            table.row(String.valueOf(size), decimal(leaderRate[0]), decimal(leaderRate[1]),
                    decimal(followerMsgs / followers), decimal(maxMsgs), decimal(followerBytes / followers),
                    decimal(maxBytes), decimal((double) totalMsgs / intervals),
                    decimal((double) totalBytes / intervals));
            design.put(size, new double[] {leaderRate[0], followerMsgs / followers, maxMsgs});
            if (size == SIZES[SIZES.length - 1]) {
                StringBuilder types = new StringBuilder();
                meter.leaderPerType.forEach((type, counts) -> types.append(types.length() == 0 ? "" : ", ")
                        .append(type).append(' ').append(decimal((double) counts[0] / intervals)).append(" msgs / ")
                        .append(Math.round((double) counts[1] / counts[0])).append(" B each"));
                leaderTypes = types.toString();
            }
            System.err.printf("peer-messages N=%d: leader %.2f msgs/interval, followers %.2f%n", size,
                    leaderRate[0], followerMsgs / followers);
        }
        out.println("Per heartbeat interval (100 ms), steady state:");
        out.println();
        out.println(table.render());
        out.println("What the leader sends at N = " + SIZES[SIZES.length - 1] + ", per interval: " + leaderTypes
                + ". A non-seed follower sends one `LeaderKeepAlive`; a seed also answers the leader's"
                + " `SeedKeepAlive` (the follower max).");
        out.println();
        MarkdownTable compare = new MarkdownTable("design", "per node per heartbeat", "N = 5", "N = 25", "N = 100",
                "source");
        compare.row("quorum (seed 003), follower mean", "O(1)", cell(design, 5, 1), cell(design, 25, 1),
                cell(design, 100, 1), "measured above");
        compare.row("quorum (seed 003), follower max (a seed)", "O(1)", cell(design, 5, 2), cell(design, 25, 2),
                cell(design, 100, 2), "measured above");
        compare.row("quorum (seed 003), leader", "O(N)", cell(design, 5, 0), cell(design, 25, 0),
                cell(design, 100, 0), "measured above");
        compare.row("all-to-all (seed 004's bully failure detector), every member", "O(N)", "8", "48", "198",
                "2(N - 1) by design: N - 1 pings and N - 1 answers per interval; `bully-messages` measures it");
        out.println(compare.render());
    }

    private static double[] rate(long[] counts, int intervals) {
        return counts == null ? new double[2] : new double[] {(double) counts[0] / intervals,
                (double) counts[1] / intervals};
    }

    private static String cell(Map<Integer, double[]> design, int size, int column) {
        double[] values = design.get(size);
        return values == null ? "—" : decimal(values[column]);
    }

    private static String decimal(double value) {
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : "%.2f", value);
    }
}
