package dev.baton.server.chaos;

import dev.baton.server.BatonCli;
import dev.baton.server.CliError;
import dev.baton.server.DurationConverter;
import dev.baton.testkit.StoreClock;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton chaos}: the fault harness. Runs real {@code baton node} processes on a backend (private Redis,
 * PostgreSQL or etcd servers started on loopback, or no server at all), injects a random fault per trial, records
 * what every node did and checks the history: at most one holder per term, terms rising in the order they were
 * acquired, no write accepted under a term lower than one already accepted, acknowledged work items readable after
 * healing, and a leader within the documented bound after healing.
 */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs real nodes under random faults (killed, frozen or partitioned nodes; a store killed, frozen, slowed,",
            "cut off, or restored from an older state) and checks that no term is issued twice, terms rise, no two",
            "nodes count themselves leader at once, and no stale write is accepted. Exits 0 when no safety property",
            "was violated, 1 when one was (the report names the trial and the seed that replays it), 2 on a usage",
            "error."})
public final class ChaosCommand implements Callable<Integer> {

    private static final List<String> BACKENDS = List.of("redis", "redis-cluster", "postgresql", "quorum",
            "bully", "etcd", "redis-sentinel", "postgresql-standby", "redis-sentinel-zombie");

    /** The quorum backend's old name, still accepted (the bully election is a peer protocol too). */
    private static final String OLD_QUORUM_NAME = "peer";

    @Option(names = "--backend", required = true, paramLabel = "NAME",
            description = "redis, redis-cluster, postgresql, etcd (private servers on loopback, started and stopped by"
                    + " the run; etcd: a three-member cluster), quorum or bully (no server; peer is the old name of "
                    + "quorum), or a replicated store: redis-sentinel (a primary, two replicas, three Sentinels) or "
                    + "postgresql-standby (a primary and a streaming standby); redis-sentinel-zombie is the Sentinel "
                    + "deployment with node n1 on the primary's side of a partition (fault sentinel-zombie-primary).")
    String backend;

    @Option(names = "--trials", paramLabel = "N", defaultValue = "100",
            description = "How many trials (default: ${DEFAULT-VALUE}). A trial takes a few seconds; a Redis "
                    + "Sentinel failover trial 10-15 s (the Sentinels pace their failovers).")
    int trials;

    @Option(names = "--seed", paramLabel = "N",
            description = "The run's seed (default: random, printed). The same seed picks the same faults and timings.")
    Long seed;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
            description = "How many node processes, 3 to 5 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--trial", paramLabel = "K",
            description = "Replay trial K of the seed alone (the nodes start fresh, then trial K runs).")
    Integer onlyTrial;

    @Option(names = "--faults", paramLabel = "LIST", split = ",",
            description = "Only these faults, e.g. kill-node,store-restore-snapshot (default: every fault the "
                    + "backend supports, except the store-clock faults of redis and postgresql, which run only when "
                    + "named here: store-clock-step-small, store-clock-step-back, store-clock-skew and "
                    + "store-clock-step-large, which breaks an assumption and is reported apart; and quorum's "
                    + "replica-restart-empty, which needs --workers).")
    List<String> faults;

    @Option(names = "--faults-in-turn",
            description = "Take the faults in turn (trial K gets the K-th, cyclically) instead of at random, so that a "
                    + "short run covers each of them.")
    boolean inTurn;

    @Option(names = "--multi-fault", paramLabel = "P", defaultValue = "0",
            description = "The probability (0 to 1) that a trial adds a second fault, started while the first is "
                    + "active and healed after it, e.g. a node killed while the store is paused; only faults that can "
                    + "co-exist are paired (default: ${DEFAULT-VALUE}, one fault per trial).")
    double multiFault;

    @Option(names = "--aim", paramLabel = "MOMENT", defaultValue = "none",
            description = "none (default): inject as soon as a leader is steady; handover: have the leader release "
                    + "and inject once it has let go, while the followers' acquires are in flight.")
    String aim;

    @Option(names = "--naive",
            description = "Run the nodes as the original designs did: no local deadline and a resource without "
                    + "fencing. The checkers should then report violations; this shows that they can.")
    boolean naive;

    @Option(names = "--wait-replicas", paramLabel = "N", defaultValue = "0",
            description = "redis-sentinel only: the nodes' stores wait for N replicas after each acquire, renewal and "
                    + "fenced write (the store URI's waitReplicas), and the data nodes refuse writes without N "
                    + "replicas (min-replicas-to-write); 0 (default) for neither.")
    int waitReplicas;

    @Option(names = "--sentinel-down-after", paramLabel = "DUR", converter = DurationConverter.class,
            defaultValue = "1s",
            description = "redis-sentinel only: the Sentinels' down-after-milliseconds (default: ${DEFAULT-VALUE}).")
    Duration sentinelDownAfter;

    @Option(names = "--sentinel-failover-timeout", paramLabel = "DUR", converter = DurationConverter.class,
            defaultValue = "5s",
            description = "redis-sentinel only: the Sentinels' failover-timeout; failovers are spaced by twice it "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration sentinelFailoverTimeout;

    @Option(names = "--workers", paramLabel = "N",
            description = "Simulated workers (baton worker processes) the nodes' work cluster runs the trials' work "
                    + "items on, 0 to 5; 0 runs no work cluster (default: 2 on redis and postgresql, 0 elsewhere; "
                    + "possible on quorum too, whose nodes then keep the items in their replicated work store).")
    Integer workers;

    @Option(names = "--groups", paramLabel = "N", defaultValue = "1",
            description = "How many elections each node runs, all on its one store session: groups chaos, chaos-2, "
                    + "..., chaos-N; every leadership checker runs on each group apart (default: ${DEFAULT-VALUE}). "
                    + "The harness hands over and aims its faults at group chaos; the fenced writes are that group's. "
                    + "Store backends only, 1 to 500.")
    int groups;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Where node logs, history.jsonl and report.md go (default: a new temporary directory, kept).")
    Path out;

    @Override
    public Integer call() {
        ChaosRunSettings settings = settings();
        PrintStream stdout = System.out;
        History history;
        String stopped = null;
        try (ChaosRun run = new ChaosRun(settings, open(settings), stdout)) {
            // Interrupted (Ctrl-C, SIGTERM), the run still stops the processes and servers it started.
            Thread stopOnSignal = new Thread(() -> {
                stdout.printf("%nchaos: interrupted; stopping the nodes, workers and servers (no report; the node "
                        + "logs are in %s)%n", settings.dir());
                run.close();
            }, "chaos-interrupted");
            Runtime.getRuntime().addShutdownHook(stopOnSignal);
            try {
                run.run();
            } catch (ChaosException e) {
                stopped = e.getMessage();
            } finally {
                removeQuietly(stopOnSignal);
            }
            history = run.history();
        }
        ChaosVerdict verdict = ChaosVerdict.of(settings, history);
        verdict.save(settings.dir());
        stdout.println();
        stdout.print(verdict.text());
        stdout.printf("history, report and node logs: %s%n", settings.dir());
        if (stopped != null) {
            throw CliError.failure("chaos: " + stopped);
        }
        return verdict.safe() ? BatonCli.EXIT_OK : BatonCli.EXIT_FAILURE;
    }

    /** Removes {@code hook}; once the JVM is shutting down the hook runs anyway, and that is fine. */
    private static void removeQuietly(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it stops what the run started
        }
    }

    private ChaosRunSettings settings() {
        if (!BACKENDS.contains(backend) && !OLD_QUORUM_NAME.equals(backend)) {
            throw CliError.usage("--backend: expected one of " + String.join(", ", BACKENDS) + " (" + OLD_QUORUM_NAME
                    + ": the old name of quorum), got '" + backend + "'");
        }
        if (trials < 1 || trials > 100_000) {
            throw CliError.usage("--trials: expected 1 to 100000, got " + trials);
        }
        if (nodes < 3 || nodes > 5) {
            throw CliError.usage("--nodes: expected 3 to 5, got " + nodes);
        }
        if (onlyTrial != null && (onlyTrial < 1 || onlyTrial > trials)) {
            throw CliError.usage("--trial: expected 1 to --trials (" + trials + "), got " + onlyTrial);
        }
        List<FaultKind> chosen = new ArrayList<>();
        for (String label : faults == null ? List.<String>of() : faults) {
            try {
                chosen.add(FaultKind.of(label.strip()));
            } catch (IllegalArgumentException e) {
                throw CliError.usage("--faults: " + e.getMessage());
            }
        }
        ChaosRunSettings.SentinelSettings sentinel = new ChaosRunSettings.SentinelSettings(waitReplicas,
                sentinelDownAfter, sentinelFailoverTimeout);
        if (!backend.startsWith("redis-sentinel") && !sentinel.isDefault()) {
            throw CliError.usage("--wait-replicas, --sentinel-down-after and --sentinel-failover-timeout apply to "
                    + "--backend redis-sentinel and redis-sentinel-zombie only");
        }
        if (waitReplicas < 0 || waitReplicas > 2) {
            throw CliError.usage("--wait-replicas: expected 0 to 2 (the deployment has two replicas), got "
                    + waitReplicas);
        }
        if (sentinelDownAfter.toMillis() < 100) {
            throw CliError.usage("--sentinel-down-after: expected at least 100ms, got " + sentinelDownAfter.toMillis()
                    + "ms");
        }
        if (sentinelFailoverTimeout.toMillis() < 500) {
            throw CliError.usage("--sentinel-failover-timeout: expected at least 500ms, got "
                    + sentinelFailoverTimeout.toMillis() + "ms");
        }
        TrialShape shape;
        try {
            shape = new TrialShape(multiFault, TrialShape.Aim.of(aim.strip()));
        } catch (IllegalArgumentException e) {
            throw CliError.usage(e.getMessage());
        }
        int runWorkers = workers != null ? workers : ChaosRunSettings.defaultWorkers(backend);
        if (runWorkers < 0 || runWorkers > 5) {
            throw CliError.usage("--workers: expected 0 to 5, got " + runWorkers);
        }
        if (runWorkers > 0 && !ChaosRunSettings.supportsWorkers(backend)) {
            throw CliError.usage("--workers: only redis, postgresql and quorum run the work cluster in the harness "
                    + "(their nodes keep work items in the store they share, or quorum's in its replicated work store)"
                    + "; use --workers 0 on " + backend);
        }
        if (groups < 1 || groups > 500) {
            throw CliError.usage("--groups: expected 1 to 500, got " + groups);
        }
        if (groups > 1 && !ChaosRunSettings.supportsGroups(backend)) {
            throw CliError.usage("--groups: more than one group per node runs on the store backends only (the "
                    + "elections of a process share its store session there); use --groups 1 on " + backend);
        }
        long runSeed = seed != null ? seed : new SecureRandom().nextLong() & Long.MAX_VALUE;
        Path dir = out != null ? out : temporaryDirectory();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw CliError.usage("--out: cannot create " + dir + ": " + e.getMessage());
        }
        return new ChaosRunSettings(backend, trials, runSeed, nodes, naive, Optional.ofNullable(onlyTrial),
                List.copyOf(chosen), inTurn, dir, sentinel, shape, runWorkers, groups);
    }

    /** Starts the backend's servers; a fault the backend does not support is a usage error. */
    static ChaosTarget open(ChaosRunSettings settings) {
        ChaosTarget target;
        StoreTarget.ServerClock clock = StoreTarget.ServerClock.forFaults(settings.faults());
        try {
            target = switch (settings.backend()) {
                case "redis" -> new RedisTarget(settings.nodes(), StoreTimings.chaos(), clock);
                case "redis-cluster" -> new RedisClusterTarget(StoreTimings.chaos(), ChaosRun.GROUP);
                case "postgresql" -> new PostgresTarget(settings.nodes(), StoreTimings.chaos(), clock);
                case "etcd" -> new EtcdTarget(StoreTimings.chaos());
                case "redis-sentinel" -> new RedisSentinelTarget(StoreTimings.replicated(), settings.sentinel());
                case "postgresql-standby" -> new PostgresStandbyTarget(settings.nodes(),
                        StoreTimings.replicated());
                case "redis-sentinel-zombie" -> new SentinelZombieTarget(StoreTimings.replicated(), settings.sentinel());
                case "quorum", "peer", "bully" -> new PeerTarget(settings.backend(), settings.nodes(), settings.dir(),
                        settings.workers() > 0);
                default -> throw new IllegalArgumentException(settings.backend());
            };
        } catch (StoreClock.UnavailableException e) {
            throw CliError.usage("chaos --faults " + settings.faults().stream().filter(FaultKind::movesStoreClock)
                    .map(FaultKind::wireName).toList() + " run the store on a clock of its own, which is not "
                    + "possible here: " + e.getMessage());
        } catch (IllegalStateException e) {
            // The private servers come from the binaries on PATH (redis-server; initdb and postgres; etcd).
            throw CliError.usage("chaos --backend " + settings.backend() + " starts its own private server and "
                    + "could not: " + e.getMessage()
                    + " (install redis-server, PostgreSQL or etcd-server, e.g. with apt-get)");
        }
        List<FaultKind> supported = new ArrayList<>(ChaosRun.drawnFaults(target, settings.workers()));
        supported.addAll(target.faultsOnRequest());
        List<FaultKind> unsupported = settings.faults().stream().filter(f -> !supported.contains(f)).toList();
        if (settings.workers() == 0 && unsupported.stream().anyMatch(ChaosRun.WORKER_FAULTS::contains)) {
            target.close();
            throw CliError.usage("--faults: " + ChaosRun.WORKER_FAULTS.stream().map(FaultKind::wireName).toList()
                    + " need workers (--workers 1 or more)");
        }
        if (settings.workers() == 0 && settings.faults().contains(FaultKind.REPLICA_RESTART_EMPTY)
                && target.faultsOnRequest().contains(FaultKind.REPLICA_RESTART_EMPTY)) {
            target.close();
            throw CliError.usage("--faults: replica-restart-empty needs workers (--workers 1 or more): the nodes keep "
                    + "work items in their replicated work store only when they run the work cluster");
        }
        if (!unsupported.isEmpty()) {
            target.close();
            throw CliError.usage("--faults: " + unsupported.stream().map(FaultKind::wireName).toList() + " not supported "
                    + "on " + settings.backend() + " (it supports " + supported.stream().map(FaultKind::wireName)
                    .toList() + ")");
        }
        return target;
    }

    private Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("baton-chaos-" + backend + "-");
        } catch (IOException e) {
            throw CliError.failure("chaos: cannot create a temporary directory: " + e.getMessage());
        }
    }
}
