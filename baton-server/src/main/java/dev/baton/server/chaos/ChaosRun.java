package dev.baton.server.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.testkit.StoreClock;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One chaos run: real {@code baton node} processes on one backend, and a sequence of trials, each of which waits for
 * a leader, injects one fault chosen from the run's seed, writes work items while the fault lasts (store backends),
 * heals, waits for a leader within the backend's bound and reads the items back. Everything the nodes report —
 * leadership acquired and lost with its term, each deadline a leadership counted itself valid to, every fenced write
 * with its outcome — and everything the harness did goes into one {@link History}, with monotonic times, for the
 * checkers.
 *
 * <p>Each trial draws its choices from its own {@code Random(seed, trial)}, so {@code --trial K} replays trial K's
 * fault and timings alone (the processes' own timing is not replayed: the machine's scheduler decides that).
 *
 * <p>Holding a fault for a time is what the harness is for, so it waits on the wall clock here; every wait is bounded.
 */
final class ChaosRun implements AutoCloseable {

    /** How long the nodes get to elect their first leader. */
    private static final Duration FIRST_LEADER = Duration.ofSeconds(60);
    /** How long a trial waits for a leader before it injects its fault. */
    private static final Duration STEADY_LEADER = Duration.ofSeconds(30);
    /** How long the harness keeps reading a work item back before it records that it could not. */
    private static final Duration READ_BACK = Duration.ofSeconds(10);
    private static final long POLL_NANOS = Duration.ofMillis(10).toNanos();
    /** The group every node runs in; a target whose faults aim at the group's data (its cluster slot) needs it. */
    static final String GROUP = "chaos";
    private static final long FENCED_WRITE_INTERVAL_MS = 100;
    /** The faults that need the work cluster, drawn only in runs with workers. */
    static final List<FaultKind> WORKER_FAULTS = List.of(FaultKind.PAUSE_AFTER_FENCED_WRITE);
    /** How long the harness waits for an armed leader to write an assignment and stop itself. */
    private static final Duration SELF_STOP_WAIT = Duration.ofSeconds(3);
    /** How often a simulated worker reports its state to the leader. */
    static final Duration WORKER_REPORT_INTERVAL = Duration.ofMillis(500);

    private final ChaosRunSettings settings;
    private final ChaosTarget target;
    private final PrintStream out;
    private final History history = new History();
    private final NodeHttp http = new NodeHttp();
    private final List<ChaosNode> nodes = new ArrayList<>();
    private final List<Integer> httpPorts;
    /** The simulated workers ({@code --workers}): {@code baton worker} processes, named {@code w1}, {@code w2}, ... */
    private final List<ChaosNode> workers = new ArrayList<>();
    private final Map<String, Long> held = new ConcurrentHashMap<>();
    /** With {@code --groups}: who leads the other groups, so that a trial starts with each of them led. */
    private final GroupLeaders otherGroups;
    /** The nodes that said they stopped taking part after a failed vote-log save (quorum), until restarted. */
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();
    /** The nodes whose current process printed {@code node-started}: it reached its store and runs its election. */
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    /**
     * With workers on a serverless backend: the nodes whose current process printed {@code work-replica-ready}, its
     * in-memory replica of the work items holding the group's state again since it started empty.
     */
    private final Set<String> replicaReady = ConcurrentHashMap.newKeySet();
    /** The nodes that stopped themselves after a fenced write ({@code pause-after-fenced-write}), and when. */
    private final Map<String, Long> selfStopped = new ConcurrentHashMap<>();
    private final FenceResource fence;
    private volatile int trial;
    /** How many leadership-lost lines the nodes have printed: an aimed trial waits for the next one. */
    private final AtomicInteger losses = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The trial's second fault until its first fault's first hold starts it, then while it is active. */
    private SecondFaultRun second;

    ChaosRun(ChaosRunSettings settings, ChaosTarget target, PrintStream out) {
        this.settings = settings;
        this.target = target;
        this.out = out;
        this.otherGroups = new GroupLeaders(settings.groups());
        List<Integer> ports = LoopbackPorts.free(settings.nodes() + settings.workers());
        this.httpPorts = ports.subList(0, settings.nodes());
        List<String> workerUrls = new ArrayList<>();
        for (int w = 0; w < settings.workers(); w++) {
            String name = "w" + (w + 1);
            String url = "ws://" + LoopbackPorts.HOST + ":" + ports.get(settings.nodes() + w);
            workerUrls.add(url);
            workers.add(new ChaosNode("worker", name, url, workerArgs(ports.get(settings.nodes() + w)),
                    settings.dir().resolve(name + ".log"), this::recordWorker));
        }
        boolean needsResource = settings.naive() || !target.fencesInStore();
        this.fence = needsResource ? FenceResource.start(!settings.naive()) : null;
        Random run = new Random(settings.seed());
        int skewed = settings.nodes() - 1;
        double rate = run.nextBoolean() ? 1.01 : 0.99;
        for (int i = 0; i < settings.nodes(); i++) {
            List<String> args = new ArrayList<>(target.nodeArgs(i));
            args.addAll(List.of("--group", GROUP, "--http", LoopbackPorts.HOST + ":" + httpPorts.get(i),
                    "--fenced-writes", FENCED_WRITE_INTERVAL_MS + "ms", "--chaos-hooks"));
            if (fence != null) {
                args.addAll(List.of("--fenced-writes-to", LoopbackPorts.HOST + ":" + fence.port()));
            }
            if (settings.naive()) {
                args.add("--naive");
            }
            if (!workerUrls.isEmpty()) {
                args.addAll(List.of("--workers", String.join(",", workerUrls)));
            }
            if (i == skewed) {
                args.addAll(List.of("--clock-rate", Double.toString(rate)));
            }
            if (settings.groups() > 1) {
                args.addAll(List.of("--chaos-groups", Integer.toString(settings.groups())));
            }
            String name = "n" + (i + 1);
            nodes.add(new ChaosNode(name, target.nodeId(i), args, settings.dir().resolve(name + ".log"),
                    this::record));
        }
        out.printf("chaos: %s, %d nodes%s (%s's clock runs at %.2f x), seed %d, %s%n", target.name(),
                settings.nodes(), settings.groups() > 1 ? " of " + settings.groups() + " groups each" : "",
                nodes.get(skewed).name(), rate, settings.seed(),
                settings.naive() ? "NAIVE mode (no local deadline, no fencing)" : "Baton's safety rules on");
    }

    /**
     * A worker's flags: a state report every 500 ms (the leader sees a stray copy that soon), no detection results
     * (nothing reads them), no drain when the run stops it, and a {@code worker-command} line per command it judges.
     */
    private static List<String> workerArgs(int port) {
        return List.of("--host", LoopbackPorts.HOST, "--port", Integer.toString(port), "--report-interval",
                WORKER_REPORT_INTERVAL.toMillis() + "ms", "--detections-per-second", "0", "--drain-timeout", "0s",
                "--chaos-hooks");
    }

    /** Runs every trial (or the one asked for) and returns the history. */
    History run() {
        workers.forEach(ChaosNode::start);
        nodes.forEach(ChaosNode::start);
        if (awaitLeader(FIRST_LEADER) < 0) {
            throw new ChaosException("no leader within " + FIRST_LEADER.toSeconds() + " s of starting the nodes; "
                    + "their logs are in " + settings.dir());
        }
        int first = settings.onlyTrial().orElse(1);
        int last = settings.onlyTrial().orElse(settings.trials());
        for (int k = first; k <= last; k++) {
            try {
                runTrial(k);
            } catch (RuntimeException e) {
                throw new ChaosException("trial " + k + " failed to inject or heal its fault, and the run stopped "
                        + "there (the history so far is kept): " + e.getMessage());
            }
        }
        trial = last + 1;
        return history;
    }

    /** Everything recorded so far (all of it once {@link #run()} has returned). */
    History history() {
        return history;
    }

    private void runTrial(int number) {
        trial = number;
        Random random = trialRandom(settings.seed(), number);
        List<FaultKind> faults = settings.faults().isEmpty() ? drawnFaults(target, settings.workers())
                : settings.faults();
        int draw = random.nextInt(faults.size());
        FaultKind fault = faults.get(settings.inTurn() ? (number - 1) % faults.size() : draw);
        restartDeadNodes();
        long newestHeld = held.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
        if (target.beforeTrial(fault)) {
            // The nodes moved to a fresh store: leaderships from before are over there, and one won there has a
            // higher term (possibly already, while the old store was being stopped).
            held.values().removeIf(term -> term <= newestHeld);
            otherGroups.forgetAll();
        }
        if (awaitLeader(STEADY_LEADER) < 0) {
            out.printf("trial %d: no leader within %d s before the fault; running it anyway%n", number,
                    STEADY_LEADER.toSeconds());
        }
        awaitStarted(number);
        awaitReplicasReady(number);
        awaitOtherGroupsLed(number);
        int leader = currentLeader();
        int victim = leader >= 0 && random.nextBoolean() ? leader : random.nextInt(nodes.size());
        Duration ttl = target.leaseTtl();
        long begun = System.nanoTime();
        if (settings.shape().aim() == TrialShape.Aim.HANDOVER) {
            aimAtHandover();
        }
        Random secondDraws = SecondFault.random(settings.seed(), number);
        second = SecondFault.draw(secondDraws, settings.shape().multiFault(), fault, faults,
                target::needsNodesDown)
                .map(kind -> new SecondFaultRun(kind, secondDraws)).orElse(null);
        long start = System.nanoTime();
        List<String> items = new ArrayList<>();
        Fault injected = inject(fault, victim, random, ttl, items);
        SecondFaultRun also = healSecond();
        long healed = System.nanoTime();
        long leaderAt = awaitLeader(target.leaderBound().plusSeconds(5));
        if (fault.canLoseData()) {
            settleForgottenGrants(ttl);
        }
        readBack(items);
        deleteItems(items);
        long end = System.nanoTime();
        if (injected.targets().isEmpty()) {
            history.append(new HistoryEvent.Fault(number, fault, null, start, injected.end()));
        }
        for (String node : injected.targets()) {
            long[] span = injected.spans().getOrDefault(node, new long[] {start, injected.end()});
            history.append(new HistoryEvent.Fault(number, fault, node, span[0], span[1]));
        }
        if (also != null) {
            also.record(history, number);
        }
        history.append(new HistoryEvent.Trial(number, fault, fault.canLoseData(), begun, healed, end,
                leaderAt < 0 ? null : leaderAt, target.leaderBound().toMillis()));
        out.printf("trial %d/%d: %-22s %-14s held %5d ms, leader %s after healing%n", number, settings.trials(),
                also == null ? fault : fault + " + " + also.kind(),
                injected.targets().isEmpty() ? "" : "on " + String.join("+", injected.targets()),
                (healed - start) / 1_000_000,
                leaderAt < 0 ? "NOT seen" : (Math.max(0, leaderAt - healed) / 1_000_000) + " ms");
    }

    /**
     * After a fault that can make the store forget writes: a store that forgot a grant hands the lease out again once
     * its older copy expires, up to one lease after the heal, while the holder counts itself leader until its renewal
     * is refused or its deadline passes. Waiting two leases keeps the overlap this can cause in the trial whose fault
     * caused it (counted apart by the checkers), rather than in the next trial, where it would look like a violation
     * under a fault that loses nothing.
     */
    private static void settleForgottenGrants(Duration ttl) {
        sleepNanos(ttl.multipliedBy(2).toNanos());
    }

    /**
     * The faults a trial draws from without {@code --faults}: the target's, and with workers the faults that need the
     * work cluster, appended so that a run without workers draws exactly as before.
     */
    static List<FaultKind> drawnFaults(ChaosTarget target, int workers) {
        if (workers == 0) {
            return target.faults();
        }
        List<FaultKind> faults = new ArrayList<>(target.faults());
        faults.addAll(target.workerFaults());
        return List.copyOf(faults);
    }

    /**
     * What a trial injected: on which nodes (none for a fault of the store as a whole), and when it ended; {@code spans}
     * gives a node its own start and end where the fault hit its nodes one after the other.
     */
    private record Fault(List<String> targets, long end, Map<String, long[]> spans) {

        Fault(List<String> targets, long end) {
            this(targets, end, Map.of());
        }

        static Fault onStore(long end) {
            return new Fault(List.of(), end);
        }

        static Fault on(ChaosNode node, long end) {
            return new Fault(List.of(node.name()), end);
        }
    }

    private Fault inject(FaultKind fault, int victim, Random random, Duration ttl, List<String> items) {
        ChaosNode node = nodes.get(victim);
        writeItem(items);
        switch (fault) {
            case NONE -> {
                releaseLeader();
                hold(between(random, 500, 1500), items);
                return Fault.onStore(System.nanoTime());
            }
            case KILL_NODE -> {
                crash(node);
                hold(between(random, 500, 3000), items);
                long end = System.nanoTime();
                healSecondOnTheStore();
                node.start();
                return Fault.on(node, end);
            }
            case PAUSE_NODE -> {
                long paused = System.nanoTime();
                node.pause();
                hold(scaled(ttl, random, 1.2, 2.0), items);
                node.resume();
                long end = System.nanoTime();
                history.append(new HistoryEvent.Pause(trial, node.name(), paused, end));
                return Fault.on(node, end);
            }
            case PARTITION_ONE, PARTITION_TWO -> {
                List<Integer> cut = new ArrayList<>(List.of(victim));
                if (fault == FaultKind.PARTITION_TWO) {
                    cut.add((victim + 1 + random.nextInt(nodes.size() - 1)) % nodes.size());
                }
                partition(cut);
                hold(between(random, 1000, 4000), items);
                heal();
                return new Fault(cut.stream().map(i -> nodes.get(i).name()).toList(), System.nanoTime());
            }
            case STORE_RESTORE_SNAPSHOT, STORE_TRUNCATED_AOF, STORE_RESTORE_BACKUP -> {
                // The store's state is saved, the lease changes hands (a new term), the new leader writes, and then
                // the store comes back with the saved state: the term counter is older than terms already used.
                target.prepare(fault);
                releaseLeader();
                hold(between(random, 500, 1500), items);
                if (target.needsNodesDown(fault)) {
                    nodes.forEach(this::crash);
                    target.inject(fault, victim, Duration.ZERO);
                    nodes.forEach(ChaosNode::start);
                } else {
                    target.inject(fault, victim, Duration.ZERO);
                }
                hold(between(random, 300, 1000), items);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_RESTART, STORE_RESTART_EMPTY -> {
                target.inject(fault, victim, Duration.ZERO);
                hold(between(random, 500, 1500), items);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_PAUSE -> {
                target.inject(fault, victim, Duration.ZERO);
                hold(scaled(ttl, random, 0.5, 2.0), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_LATENCY -> {
                target.inject(fault, victim, between(random, 50, 400));
                hold(between(random, 1000, 3000), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_LINK_STRAGGLER -> {
                target.inject(fault, victim, Duration.ZERO);
                if (random.nextBoolean()) {
                    releaseLeader(); // a follower's acquire is in flight while the hold is set
                }
                hold(scaled(ttl, random, 1.2, 2.0), items);
                target.heal(fault);
                return Fault.on(node, System.nanoTime());
            }
            case STORE_CALL_STRAGGLER -> {
                // Two trials in three: a follower's next acquire (its periodic poll) is held and times out, then the
                // leader hands over and the follower's later attempts compete as usual; once the lease has a new
                // holder the held acquire reaches the store, which grants a newer term if the follower won. Else the
                // leader's next renewal, or its release, is held and delivered late.
                int leader = currentLeader();
                String call = List.of("acquire", "acquire", "acquire", "acquire", "renew", "release")
                        .get(random.nextInt(6));
                int on = call.equals("acquire") ? followerOr(victim, leader, random) : leaderOr(victim);
                ChaosNode straggler = nodes.get(on);
                straggler.command("straggle " + call);
                if (call.equals("acquire")) {
                    hold(between(random, 600, 1200), items);
                    long before = newestHeld();
                    releaseLeader();
                    long deadline = System.nanoTime() + target.leaderBound().toNanos();
                    while (newestHeld() <= before && System.nanoTime() - deadline < 0) {
                        LockSupport.parkNanos(POLL_NANOS);
                    }
                } else if (call.equals("release")) {
                    releaseLeader();
                }
                hold(between(random, 200, 800), items);
                straggler.command("deliver");
                out.printf("trial %d: %s's %s held, delivered while it %s%n", trial, straggler.name(), call,
                        held.containsKey(straggler.name()) ? "leads" : "follows");
                hold(between(random, 500, 1500), items);
                return Fault.on(straggler, System.nanoTime());
            }
            case STORE_BLACKHOLE, STORE_RESET, ETCD_LINK_HELD -> {
                target.inject(fault, victim, Duration.ZERO);
                hold(fault == FaultKind.STORE_RESET ? between(random, 500, 3000) : scaled(ttl, random, 1.2, 2.0),
                        items);
                target.heal(fault);
                return Fault.on(node, System.nanoTime());
            }
            case CLUSTER_MASTER_KILL, CLUSTER_FAILOVER, CLUSTER_SLOT_MIGRATION -> {
                // Another node comes to serve the group while the nodes run; half the time the lease also changes
                // hands meanwhile, so a term is issued on the node that serves the group next.
                target.inject(fault, victim, Duration.ZERO);
                if (random.nextBoolean()) {
                    releaseLeader();
                }
                hold(between(random, 500, 2000), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case ETCD_MEMBER_KILL, ETCD_LEADER_KILL, ETCD_LEADER_PAUSE -> {
                // Two members of three keep the store available; the lost one comes back with its data on heal.
                target.inject(fault, victim, Duration.ZERO);
                hold(between(random, 1000, 3000), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case SENTINEL_PRIMARY_KILLED, SENTINEL_FAILOVER, STANDBY_PROMOTED, SENTINEL_ZOMBIE_PRIMARY -> {
                // The store's primary fails (or is switched); after a detection delay another server is promoted (by
                // the Sentinels, or by the harness as PostgreSQL's failover manager) and the nodes must follow it.
                target.inject(fault, victim, Duration.ZERO);
                hold(scaled(ttl, random, 0.15, 0.5), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case PEER_MESSAGE_CHAOS -> {
                // One mode for the whole fault, on one node (both directions of its links) or on every node.
                String mode = List.of("duplicate", "reorder", "delay").get(random.nextInt(3));
                int ms = mode.equals("delay") ? 50 + random.nextInt(351) : 20 + random.nextInt(281);
                List<ChaosNode> on = random.nextBoolean() ? nodes : List.of(node);
                on.forEach(n -> n.command(mode + " " + ms));
                out.printf("trial %d: %s %d ms on %s%n", trial, mode, ms,
                        String.join("+", on.stream().map(ChaosNode::name).toList()));
                hold(between(random, 1000, 3000), items);
                on.forEach(n -> n.command("heal"));
                return new Fault(on.stream().map(ChaosNode::name).toList(), System.nanoTime());
            }
            case VOTE_LOG_TORN -> {
                crash(node);
                target.inject(fault, victim, Duration.ZERO);
                Optional<VoteLogTear.Torn> torn = ((PeerTarget) target).lastTear();
                out.printf("trial %d: %s%n", trial, torn.map(t -> "tore record " + t.sequence() + " (slot "
                        + t.slot() + ") of " + node.name() + "'s vote log").orElse(node.name()
                        + "'s vote log held one record: nothing torn"));
                hold(between(random, 300, 1000), items);
                long end = System.nanoTime();
                node.start();
                return Fault.on(node, end);
            }
            case VOTE_LOG_EIO -> {
                // Nothing is saved while a leader holds: it hands over, so every node saves a vote (the victim too).
                node.command("vote-log fail-next-fsync");
                releaseLeader();
                hold(between(random, 1000, 2000), items);
                long end = System.nanoTime();
                if (stopped.contains(node.name())) {
                    // It takes no part until restarted, as its operator would do.
                    out.printf("trial %d: %s stopped after its failed fsync; restarting it%n", trial, node.name());
                    crash(node);
                    node.start();
                } else {
                    out.printf("trial %d: %s saved nothing meanwhile; the fault is withdrawn%n", trial, node.name());
                    node.command("heal");
                }
                return Fault.on(node, end);
            }
            case SENTINEL_LAGGING_PROMOTED, LAGGING_STANDBY_PROMOTED -> {
                // Replication stops, the lease changes hands on the primary alone (a term no replica has), then the
                // primary fails and a server without that term is promoted.
                target.prepare(fault);
                releaseLeader();
                hold(scaled(ttl, random, 0.25, 0.75), items);
                target.inject(fault, victim, Duration.ZERO);
                hold(scaled(ttl, random, 0.15, 0.5), items);
                target.heal(fault);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_CLOCK_STEP_SMALL, STORE_CLOCK_SKEW -> {
                // The holder is cut off so that its lease runs out, on a store clock stepped forward by half the
                // margin or running 1 % off: the store must still end the lease after the holder's local deadline.
                StoreClock clock = storeClock(fault);
                int holder = leaderOr(victim);
                double rate = fault == FaultKind.STORE_CLOCK_SKEW ? (random.nextBoolean() ? 1.01 : 0.99) : 1.0;
                clock.rate(rate);
                target.inject(FaultKind.STORE_BLACKHOLE, holder, Duration.ZERO);
                if (fault == FaultKind.STORE_CLOCK_STEP_SMALL) {
                    clock.step(target.storeClockMargin().dividedBy(2));
                }
                out.printf("trial %d: the store's clock is %s%n", trial, fault == FaultKind.STORE_CLOCK_SKEW
                        ? String.format("running at %.2f x", rate)
                        : "stepped forward by " + target.storeClockMargin().dividedBy(2).toMillis() + " ms");
                hold(scaled(ttl, random, 1.2, 2.0), items);
                target.heal(FaultKind.STORE_BLACKHOLE);
                clock.rate(1.0);
                return Fault.on(nodes.get(holder), System.nanoTime());
            }
            case STORE_CLOCK_STEP_BACK -> {
                // A hand-over, then the clock steps back by 2-4 s, more than the time since that grant, and the lease
                // changes hands twice more within the step: those grants' clock in microseconds is below the last
                // term, so only the store's counter keeps the terms rising. Held until the clock is past the terms
                // issued before the step, so that later trials' terms follow the clock again.
                Duration back = Duration.ofMillis(2000 + random.nextInt(2001));
                Duration first = between(random, 300, 1000);
                long before = newestHeld();
                releaseLeader();
                long deadline = System.nanoTime() + target.leaderBound().toNanos();
                while (newestHeld() <= before && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(POLL_NANOS);
                }
                storeClock(fault).step(back.negated());
                out.printf("trial %d: the store's clock stepped back by %d ms%n", trial, back.toMillis());
                releaseLeader();
                hold(first, items);
                releaseLeader();
                hold(back.minus(first).plus(between(random, 500, 1000)), items);
                return Fault.onStore(System.nanoTime());
            }
            case STORE_CLOCK_STEP_LARGE -> {
                // Twice the lease, while a leader holds it: the store ends the lease at once while its holder counts
                // itself valid until its local deadline, and a follower that asks first is granted it. Half the
                // trials cut the holder's link first, as store-clock-step-small does, so that neither a failed
                // renewal nor the store's notice tells it before its deadline. Breaks an assumption on purpose;
                // these trials' exclusion is reported apart.
                StoreClock clock = storeClock(fault);
                int holder = leaderOr(victim);
                boolean cut = random.nextBoolean();
                if (cut) {
                    target.inject(FaultKind.STORE_BLACKHOLE, holder, Duration.ZERO);
                }
                clock.step(ttl.multipliedBy(2));
                out.printf("trial %d: the store's clock stepped forward by %d ms%s%n", trial,
                        ttl.multipliedBy(2).toMillis(), cut ? ", " + nodes.get(holder).name() + "'s link cut" : "");
                hold(scaled(ttl, random, 1.2, 2.0), items);
                if (!cut) {
                    return Fault.onStore(System.nanoTime());
                }
                target.heal(FaultKind.STORE_BLACKHOLE);
                return Fault.on(nodes.get(holder), System.nanoTime());
            }
            case PAUSE_AFTER_FENCED_WRITE -> {
                return pauseAfterFencedWrite(nodes.get(leaderOr(victim)), random, items);
            }
            case REPLICA_RESTART_EMPTY -> {
                return restartReplicaEmpty(victim, random, items);
            }
            default -> throw new IllegalStateException("unhandled fault " + fault);
        }
    }

    /**
     * The leader is armed to stop itself right after the store accepts its fenced write of an assignment, before the
     * worker gets the {@code subscribe}; a new item makes it write one. Once another node holds a newer term (and a
     * moment more, for it to reach the workers) the harness lets the old leader go on, and the {@code subscribe} that
     * goes out then is a deposed leader's. If no assignment was written in time the hook is withdrawn and the trial is a
     * plain hold.
     */
    private Fault pauseAfterFencedWrite(ChaosNode leader, Random random, List<String> items) {
        Long term = held.get(leader.name());
        selfStopped.remove(leader.name());
        leader.command("pause-after-fenced-write");
        writeItem(items);
        long deadline = System.nanoTime() + SELF_STOP_WAIT.toNanos();
        while (!selfStopped.containsKey(leader.name()) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
        Long stoppedAt = selfStopped.get(leader.name());
        if (stoppedAt == null) {
            leader.command("pause-after-fenced-write withdraw");
            out.printf("trial %d: %s wrote no assignment within %d s; the hook is withdrawn%n", trial, leader.name(),
                    SELF_STOP_WAIT.toSeconds());
            hold(between(random, 500, 1500), items);
            return Fault.on(leader, System.nanoTime());
        }
        long successorBy = System.nanoTime() + target.leaderBound().plus(target.leaseTtl()).toNanos();
        while (!ledByAnotherAbove(leader, term) && System.nanoTime() - successorBy < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
        out.printf("trial %d: %s stopped itself after a fenced write; %s%n", trial, leader.name(),
                ledByAnotherAbove(leader, term) ? "another node leads now" : "no other node took over in time");
        hold(between(random, 300, 1000), items);
        leader.resume();
        long end = System.nanoTime();
        history.append(new HistoryEvent.Pause(trial, leader.name(), Math.min(stoppedAt, end), end));
        return Fault.on(leader, end);
    }

    /**
     * {@code replica-restart-empty}: a follower is killed and started again at once, so that its replica of the work
     * items comes back empty (they live in memory; its vote log, on disk, is kept). The moment it printed
     * {@code node-started} (its replica is running), before the leader has had much time to give it the state, the
     * leader is killed too, held down for 0.5-3 s and started again (empty as well). What was acknowledged before
     * (one item is written as the trial starts) may then be held by the third node only: a new leader's catch-up that
     * counted an empty replica as a vote, or a read answered from one, would lose it. The follower's fault spans its crash to
     * its {@code node-started}; the leader's, its crash to its start.
     */
    private Fault restartReplicaEmpty(int victim, Random random, List<String> items) {
        int leader = currentLeader();
        int follower = followerOr(victim, leader, random);
        ChaosNode amnesiac = nodes.get(follower);
        long killed = System.nanoTime();
        crash(amnesiac);
        amnesiac.start();
        long deadline = System.nanoTime() + STEADY_LEADER.toNanos();
        while (!started.contains(amnesiac.name()) && amnesiac.isAlive() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
        long rejoined = System.nanoTime();
        boolean up = started.contains(amnesiac.name());
        // The leader now, else the one before (if it was not the follower), else the node after the follower.
        int now = currentLeader();
        int head = now >= 0 && now != follower ? now
                : leader >= 0 && leader != follower ? leader : (follower + 1) % nodes.size();
        ChaosNode killedLeader = nodes.get(head);
        long leaderKilled = System.nanoTime();
        crash(killedLeader);
        out.printf("trial %d: %s restarted with an empty replica (%s %d ms after its kill), then %s killed (%s)%n",
                trial, amnesiac.name(), up ? "started" : "NOT started", (rejoined - killed) / 1_000_000,
                killedLeader.name(), head == now ? "the leader" : head == leader ? "the leader before the restart"
                        : "no node led");
        hold(between(random, 500, 3000), items);
        long end = System.nanoTime();
        healSecondOnTheStore();
        killedLeader.start();
        return new Fault(List.of(amnesiac.name(), killedLeader.name()), end,
                Map.of(amnesiac.name(), new long[] {killed, rejoined}, killedLeader.name(),
                        new long[] {leaderKilled, end}));
    }

    /** Whether a node other than {@code node} holds a term above {@code term} (any, if {@code term} is null). */
    private boolean ledByAnotherAbove(ChaosNode node, Long term) {
        return held.entrySet().stream().anyMatch(e -> !e.getKey().equals(node.name())
                && (term == null || e.getValue() > term));
    }

    /**
     * The store's clock, for a fault that moves it. Nothing puts it back when the fault heals: that would be a step the
     * other way, so it keeps its offset for the rest of the run, as a store host's clock does after an NTP step.
     */
    private StoreClock storeClock(FaultKind fault) {
        return target.storeClock().orElseThrow(() -> new IllegalStateException(fault + " needs the store on a "
                + "steppable clock, and " + target.name() + " runs on the machine's"));
    }

    /** The newest term a running node is known to hold, or {@code Long.MIN_VALUE}. */
    private long newestHeld() {
        return held.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
    }

    /** The node that leads as far as the harness knows, else {@code victim}. */
    private int leaderOr(int victim) {
        int leader = currentLeader();
        return leader >= 0 ? leader : victim;
    }

    /**
     * {@code --aim handover}: has the leader release its lease and returns once a node's own line says it lost its
     * leadership (or after the leader bound), so that the fault starts while the followers' acquires are in flight.
     * With no leader a hand-over is under way already.
     */
    private void aimAtHandover() {
        int leader = currentLeader();
        if (leader < 0) {
            return;
        }
        int before = losses.get();
        http.release(httpPorts.get(leader));
        long deadline = System.nanoTime() + target.leaderBound().toNanos();
        while (losses.get() == before && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * A multi-fault trial's second fault ({@link SecondFault}): drawn with the trial, started at its first fault's
     * first hold (so while the first is active), healed once the first has healed.
     */
    private static final class SecondFaultRun {
        private final FaultKind kind;
        private final Random random;
        private List<String> targets = List.of();
        private int victim = -1;
        private boolean started;
        private long start;
        private long end;
        private boolean healed;

        SecondFaultRun(FaultKind kind, Random random) {
            this.kind = kind;
            this.random = random;
        }

        FaultKind kind() {
            return kind;
        }

        boolean started() {
            return started;
        }

        /** Its fault events: one per node it hit, or one for the store. */
        void record(History history, int number) {
            if (targets.isEmpty()) {
                history.append(new HistoryEvent.Fault(number, kind, null, start, end));
            }
            for (String node : targets) {
                history.append(new HistoryEvent.Fault(number, kind, node, start, end));
            }
        }
    }

    /** Starts the trial's second fault on a node drawn from its own stream (the leader half the time). */
    private void startSecond() {
        SecondFaultRun run = second;
        Random random = run.random;
        int leader = currentLeader();
        run.victim = leader >= 0 && random.nextBoolean() ? leader : random.nextInt(nodes.size());
        ChaosNode node = nodes.get(run.victim);
        run.started = true;
        run.start = System.nanoTime();
        run.targets = List.of(node.name());
        switch (run.kind) {
            case KILL_NODE -> crash(node);
            case PAUSE_NODE -> node.pause();
            case PARTITION_ONE, PARTITION_TWO -> {
                List<Integer> cut = new ArrayList<>(List.of(run.victim));
                if (run.kind == FaultKind.PARTITION_TWO) {
                    cut.add((run.victim + 1 + random.nextInt(nodes.size() - 1)) % nodes.size());
                }
                partition(cut);
                run.targets = cut.stream().map(i -> nodes.get(i).name()).toList();
            }
            case PEER_MESSAGE_CHAOS -> {
                String mode = List.of("duplicate", "reorder", "delay").get(random.nextInt(3));
                node.command(mode + " " + (50 + random.nextInt(351)));
            }
            case STORE_BLACKHOLE, STORE_RESET -> target.inject(run.kind, run.victim, Duration.ZERO);
            case STORE_LATENCY -> {
                target.inject(run.kind, run.victim, between(random, 50, 400));
                run.targets = List.of();
            }
            case STORE_PAUSE, ETCD_MEMBER_KILL, ETCD_LEADER_KILL, ETCD_LEADER_PAUSE -> {
                target.inject(run.kind, run.victim, Duration.ZERO);
                run.targets = List.of();
            }
            default -> throw new IllegalStateException(run.kind + " cannot be a second fault");
        }
        out.printf("trial %d: second fault %s%s while the first is active%n", trial, run.kind,
                run.targets.isEmpty() ? "" : " on " + String.join("+", run.targets));
    }

    /**
     * Heals the trial's second fault now if it acts on the store, before the first fault restarts a killed node: a
     * node that cannot reach its store when it starts exits, and would miss the next trial.
     */
    private void healSecondOnTheStore() {
        SecondFaultRun run = second;
        if (run != null && run.started() && !run.healed && SecondFault.actsOnStore(run.kind)) {
            run.end = System.nanoTime();
            target.heal(run.kind);
            run.healed = true;
        }
    }

    /** Heals the trial's second fault, if it started; returns it, or null if the trial had none. */
    private SecondFaultRun healSecond() {
        SecondFaultRun run = second;
        second = null;
        if (run == null || !run.started()) {
            return null;
        }
        if (run.healed) {
            return run;
        }
        ChaosNode node = nodes.get(run.victim);
        run.end = System.nanoTime();
        run.healed = true;
        switch (run.kind) {
            case KILL_NODE -> node.start();
            case PAUSE_NODE -> {
                node.resume();
                history.append(new HistoryEvent.Pause(trial, node.name(), run.start, run.end));
            }
            case PARTITION_ONE, PARTITION_TWO -> heal();
            case PEER_MESSAGE_CHAOS -> node.command("heal");
            default -> target.heal(run.kind);
        }
        return run;
    }

    /**
     * Trial {@code number}'s own draws. The seed and the trial number are mixed (SplitMix64's finalizer) before they
     * seed a {@link Random}: {@code Random}'s first output barely changes between neighbouring seeds, so seeding it
     * with {@code seed * 1_000_003 + number} directly drew 2 of 8 faults over 1,000 trials (a power-of-two bound takes
     * the first output's top bits).
     */
    static Random trialRandom(long seed, int number) {
        long z = seed * 1_000_003L + number;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return new Random(z ^ (z >>> 31));
    }

    /** {@code victim} if it does not lead, else another node drawn from {@code random}. */
    private int followerOr(int victim, int leader, Random random) {
        return victim != leader ? victim : (victim + 1 + random.nextInt(nodes.size() - 1)) % nodes.size();
    }

    /** Waits out {@code duration}, writing a work item halfway through it. */
    private void hold(Duration duration, List<String> items) {
        if (second != null && !second.started()) {
            startSecond();
        }
        long half = duration.toNanos() / 2;
        sleepNanos(half);
        writeItem(items);
        sleepNanos(duration.toNanos() - half);
    }

    /** Writes a new work item through the node that leads, as far as the harness knows (store backends only). */
    private void writeItem(List<String> items) {
        if (!target.hasItems()) {
            return;
        }
        int leader = currentLeader();
        int via = leader >= 0 ? leader : 0;
        String id = "t" + trial + "-" + (items.size() + 1);
        String value = "v" + trial + "-" + (items.size() + 1);
        long sent = System.nanoTime();
        HistoryEvent.Outcome outcome = http.putItem(httpPorts.get(via), id, value);
        long answered = System.nanoTime();
        history.append(new HistoryEvent.ItemWrite(trial, nodes.get(via).name(), id, value, sent,
                outcome == HistoryEvent.Outcome.UNKNOWN ? null : answered, outcome));
        items.add(id);
    }

    /** Reads every item of the trial back through any node that answers, once a leader exists again. */
    private void readBack(List<String> items) {
        for (String id : items) {
            long deadline = System.nanoTime() + READ_BACK.toNanos();
            boolean done = false;
            while (!done && System.nanoTime() - deadline < 0) {
                for (int i = 0; i < nodes.size() && !done; i++) {
                    if (!nodes.get(i).isAlive() || nodes.get(i).isPaused() || !readsThrough(i)) {
                        continue;
                    }
                    NodeHttp.Read read = http.getItem(httpPorts.get(i), id);
                    if (read.answered()) {
                        history.append(new HistoryEvent.ItemRead(trial, id, read.value(), System.nanoTime()));
                        done = true;
                    }
                }
                if (!done) {
                    sleepNanos(Duration.ofMillis(100).toNanos());
                }
            }
        }
    }

    /**
     * Whether the read-back may ask node {@code index}: any node on a store, which every node reads; only the leader
     * where the items live in the nodes' own replicas, since a follower answers from its replica, which may lag the
     * leader by the writes in flight (docs/work.md, "Reads are not fenced": a node just healed from a partition or a
     * pause shows an acknowledged item as missing until the leader's next check brings it up to date). The leader's
     * reads wait for its catch-up and see every acknowledged write.
     */
    private boolean readsThrough(int index) {
        return !target.itemsInNodeMemory() || currentLeader() == index;
    }

    /**
     * With workers, deletes the trial's items through the node that leads, so that the workers stop them and the next
     * trial's items are the only ones placed; without workers the items stay, as they always did. Bounded: an item
     * whose delete finds no leader within the read-back time stays (the next leader's workers keep running it, which
     * the one-worker-per-item checker still watches).
     */
    private void deleteItems(List<String> items) {
        if (workers.isEmpty()) {
            return;
        }
        for (String id : items) {
            long deadline = System.nanoTime() + READ_BACK.toNanos();
            boolean deleted = false;
            while (!deleted && System.nanoTime() - deadline < 0) {
                int leader = currentLeader();
                deleted = leader >= 0 && http.deleteItem(httpPorts.get(leader), id);
                if (!deleted) {
                    sleepNanos(Duration.ofMillis(100).toNanos());
                }
            }
            if (!deleted) {
                out.printf("trial %d: item %s could not be deleted (no leader answered)%n", trial, id);
            }
        }
    }

    /** Turns a worker's {@code worker-command} line into history. */
    private void recordWorker(ChaosNode worker, JsonNode line) {
        if (!line.path("event").asText().equals("worker-command")) {
            return;
        }
        String item = line.path("item").asText("");
        if (item.isEmpty()) {
            return;
        }
        history.append(new HistoryEvent.WorkerCommand(trial, worker.name(), item,
                line.path("action").asText().equals("start"), line.path("leaderTerm").asLong(),
                line.path("carriedOut").asBoolean(), line.path("mono").asLong(System.nanoTime())));
    }

    private void releaseLeader() {
        int leader = currentLeader();
        if (leader >= 0) {
            http.release(httpPorts.get(leader));
        }
    }

    /** Cuts the nodes at {@code cut} off from every other node, and from each other. */
    private void partition(List<Integer> cut) {
        for (int i = 0; i < nodes.size(); i++) {
            List<String> blocked = new ArrayList<>();
            for (int j = 0; j < nodes.size(); j++) {
                if (i != j && (cut.contains(i) || cut.contains(j))) {
                    blocked.add(nodes.get(j).id());
                }
            }
            if (!blocked.isEmpty()) {
                nodes.get(i).command("partition " + String.join(",", blocked));
            }
        }
    }

    private void heal() {
        nodes.forEach(node -> node.command("heal"));
    }

    private void crash(ChaosNode node) {
        node.kill();
        started.remove(node.name());
        replicaReady.remove(node.name());
        held.remove(node.name());
        otherGroups.forget(node.name());
        stopped.remove(node.name());
        history.append(new HistoryEvent.Crash(trial, node.name(), System.nanoTime()));
    }

    private void restartDeadNodes() {
        for (ChaosNode node : nodes) {
            if (node.isAlive() && node.isPaused()) {
                // Only a node that stopped itself is still frozen here (a hook that fired after it was withdrawn):
                // every fault the harness freezes a node with lets it go before its trial ends.
                out.printf("trial %d: %s is still stopped; letting it go on%n", trial, node.name());
                node.resume();
            }
            if (!node.isAlive()) {
                out.printf("trial %d: %s had exited; starting it again (see %s.log)%n", trial, node.name(),
                        node.name());
                held.remove(node.name());
                otherGroups.forget(node.name());
                stopped.remove(node.name());
                started.remove(node.name());
                replicaReady.remove(node.name());
                node.start();
            }
        }
    }

    /**
     * Turns a node's JSON line into history and keeps the harness's view of who leads. With {@code --groups} every
     * leadership line names its group; the harness's view of who leads is that of group {@link #GROUP} alone.
     */
    private void record(ChaosNode node, JsonNode line) {
        String event = line.path("event").asText();
        long mono = line.path("mono").asLong(System.nanoTime());
        String group = line.hasNonNull("group") ? line.get("group").asText() : null;
        boolean watched = group == null || group.equals(GROUP);
        switch (event) {
            case "leadership-acquired" -> {
                long term = line.path("term").asLong();
                if (watched) {
                    held.put(node.name(), term);
                } else {
                    otherGroups.acquired(group, node.name(), term);
                }
                history.append(new HistoryEvent.Acquired(trial, node.name(), term,
                        line.path("since").asLong(mono), mono, group));
            }
            case "leadership-lost" -> {
                long term = line.path("term").asLong();
                if (watched) {
                    losses.incrementAndGet();
                    held.remove(node.name(), term);
                } else {
                    otherGroups.lost(group, node.name(), term);
                }
                history.append(new HistoryEvent.Lost(trial, node.name(), term, line.path("reason").asText(), mono,
                        group));
            }
            case "valid-until" -> history.append(new HistoryEvent.ValidUntil(trial, node.name(),
                    line.path("term").asLong(), line.path("deadline").asLong(), mono, group));
            case "fenced-write" -> history.append(new HistoryEvent.Write(trial, node.name(), line.path("term").asLong(),
                    line.path("seq").asLong(), line.path("sent").asLong(mono),
                    line.hasNonNull("answered") ? line.path("answered").asLong() : null,
                    HistoryEvent.Outcome.of(line.path("outcome").asText("unknown")), group));
            case "node-started" -> started.add(node.name());
            case "work-replica-ready" -> replicaReady.add(node.name());
            case "chaos-command" -> {
                if (line.path("command").asText().equals("pause-after-fenced-write") && line.has("item")) {
                    node.stoppedItself();
                    selfStopped.put(node.name(), mono);
                }
            }
            case "error" -> {
                if (line.path("message").asText().contains("takes no further part in elections")) {
                    stopped.add(node.name());
                }
            }
            default -> { }
        }
    }

    /** The node that leads as far as its own events say (the highest term among running nodes), or -1. */
    private int currentLeader() {
        int leader = -1;
        long best = Long.MIN_VALUE;
        for (int i = 0; i < nodes.size(); i++) {
            ChaosNode node = nodes.get(i);
            Long term = held.get(node.name());
            if (term != null && term > best && node.isAlive() && !node.isPaused()) {
                best = term;
                leader = i;
            }
        }
        return leader;
    }

    /**
     * Waits until every running node has started (a node restarted by the last trial may still be connecting), at most
     * {@link #STEADY_LEADER}: a node that cannot reach its store while it starts exits, so a store fault injected then
     * would take it out of the trial rather than test it.
     */
    private void awaitStarted(int number) {
        awaitEveryRunningNode(started, number, "a node had not started");
    }

    /**
     * With workers on a serverless backend, waits until every running node's replica of the work items holds the
     * group's state again. The replicas live in memory, and the items survive members coming back empty one at a
     * time, not a majority at once: a node killed in one trial and restarted must be given the state
     * before the next trial may kill another, as an operator waits for {@code work-replica-ready} between restarts.
     */
    private void awaitReplicasReady(int number) {
        if (target.itemsInNodeMemory()) {
            awaitEveryRunningNode(replicaReady, number, "a node's replica held no state");
        }
    }

    /** Waits until every running node is in {@code said}; after {@link #STEADY_LEADER} says {@code what} and goes on. */
    private void awaitEveryRunningNode(Set<String> said, int number, String what) {
        long deadline = System.nanoTime() + STEADY_LEADER.toNanos();
        while (nodes.stream().anyMatch(node -> node.isAlive() && !said.contains(node.name()))) {
            if (System.nanoTime() - deadline > 0) {
                out.printf("trial %d: %s within %d s before the fault; running it anyway%n", number, what,
                        STEADY_LEADER.toSeconds());
                return;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * With {@code --groups}: waits until every other group has a leader among the running nodes too, at most
     * {@link #STEADY_LEADER}, so that a fault meets each group led rather than one still settling from the last trial
     * (its leaderless time and leader after healing would then belong to the trial before).
     */
    private void awaitOtherGroupsLed(int number) {
        long deadline = System.nanoTime() + STEADY_LEADER.toNanos();
        int unled;
        while ((unled = otherGroups.unled(this::runs)) > 0) {
            if (System.nanoTime() - deadline > 0) {
                out.printf("trial %d: %d groups had no leader within %d s before the fault; running it anyway%n",
                        number, unled, STEADY_LEADER.toSeconds());
                return;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Whether the node named {@code name} is running: alive and not frozen. */
    private boolean runs(String name) {
        return nodes.stream().anyMatch(node -> node.name().equals(name) && node.isAlive() && !node.isPaused());
    }

    /** Waits until some running node leads; returns when (nanoTime), or -1 if none did within {@code timeout}. */
    private long awaitLeader(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long now = System.nanoTime();
            if (currentLeader() >= 0) {
                return now;
            }
            if (now - deadline > 0) {
                return -1;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * A hold drawn from {@code fromMillis..toMillis}, scaled by the target's {@link ChaosTarget#holdScale()}: a target
     * with a shorter lease holds its faults for proportionally less. The draw is the same whatever the scale, so a
     * target at scale 1 replays the seeds published before the scale existed.
     */
    private Duration between(Random random, int fromMillis, int toMillis) {
        long drawn = fromMillis + random.nextInt(toMillis - fromMillis + 1);
        return Duration.ofMillis(Math.round(drawn * target.holdScale()));
    }

    private static Duration scaled(Duration base, Random random, double from, double to) {
        return Duration.ofMillis((long) (base.toMillis() * (from + random.nextDouble() * (to - from))));
    }

    private static void sleepNanos(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * Stops every node (gracefully), the workers, the fenced resource and the backend's servers. Once: the run's end
     * and an interrupted run's shutdown hook may both call it.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            try {
                nodes.forEach(ChaosNode::close);
            } finally {
                workers.forEach(ChaosNode::close);
            }
        } finally {
            try {
                if (fence != null) {
                    fence.close();
                }
            } finally {
                target.close();
            }
        }
    }

    /** Where the run's files go: one log per node, the history, the report. */
    Path dir() {
        return settings.dir();
    }
}
