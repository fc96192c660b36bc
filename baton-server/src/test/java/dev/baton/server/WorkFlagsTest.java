package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.work.WorkClusterConfig;
import dev.baton.work.WorkClusterEvent;
import dev.baton.work.worker.WorkerEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code baton node --workers} (and the seed's {@code DETECTOR_WORKERS}) parsed and validated in process, and the
 * JSON lines of the work cluster's events; {@link WorkClusterProcessTest} runs it for real.
 */
class WorkFlagsTest {

    private static final Instant AT = Instant.parse("2026-11-21T17:00:00.123456789Z");

    @Test
    void workersBecomeTheWorkClusterWithTheProfilesTimings() {
        NodeSettings settings = settings(Map.of(), "--backend", "redis://127.0.0.1:6390", "--profile", "fast",
                "--workers", "ws://127.0.0.1:9001, ws://127.0.0.1:9002,wss://workers.internal:443");

        WorkSettings work = settings.work().orElseThrow();
        assertThat(work.workers()).containsExactly("ws://127.0.0.1:9001", "ws://127.0.0.1:9002",
                "wss://workers.internal:443");
        assertThat(work.origin()).isEqualTo("--workers");
        assertThat(work.config().reconcileInterval()).isEqualTo(WorkClusterConfig.fast().reconcileInterval());
    }

    @Test
    void theDefaultProfileKeepsTheSeedsTimings() {
        WorkSettings work = settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001").work()
                .orElseThrow();

        assertThat(work.config().reconcileInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(work.config().connection().reportTimeout()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void detectorWorkersIsReadWhenTheFlagIsAbsentAndTheFlagWins() {
        Map<String, String> env = Map.of("DETECTOR_WORKERS", "ws://10.0.0.5:8000,ws://10.0.0.6:8000");

        WorkSettings fromEnv = settings(env, "--backend", "memory").work().orElseThrow();
        WorkSettings fromFlag = settings(env, "--backend", "memory", "--workers", "ws://10.0.0.7:8000").work()
                .orElseThrow();

        assertThat(fromEnv.workers()).containsExactly("ws://10.0.0.5:8000", "ws://10.0.0.6:8000");
        assertThat(fromEnv.origin()).isEqualTo("DETECTOR_WORKERS");
        assertThat(fromFlag.workers()).containsExactly("ws://10.0.0.7:8000");
        assertThat(settings(Map.of("DETECTOR_WORKERS", "  "), "--backend", "memory").work()).isEmpty();
        assertThat(settings(Map.of(), "--backend", "memory").work()).isEmpty();
    }

    @Test
    void badWorkerListsAreNamedInOneLine() {
        assertUsageError(Map.of(), List.of("--backend", "memory", "--workers", "http://127.0.0.1:9001"),
                "--workers", "'http://127.0.0.1:9001' is not a worker URL", "ws://HOST:PORT");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--workers", "ws://127.0.0.1:9001,,ws://x:1"),
                "--workers", "no empty entry");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--workers", "ws://a:1,ws://a:1"),
                "--workers lists worker ws://a:1 twice");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--workers", "ws://bad host:1"), "--workers",
                "is not a URL");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--workers", "127.0.0.1:9001"),
                "is not a worker URL");
        assertUsageError(Map.of("DETECTOR_WORKERS", "tcp://127.0.0.1:9001"), List.of("--backend", "memory"),
                "DETECTOR_WORKERS: 'tcp://127.0.0.1:9001' is not a worker URL");
    }

    @Test
    void theServerlessBackendsRunTheWorkClusterOnReplicatedMaps() {
        List<String> peer = List.of("--backend", "peer", "--listen", "127.0.0.1:7401", "--seeds", "127.0.0.1:7401",
                "--cluster-size", "1");
        List<String> withWorkers = new ArrayList<>(peer);
        withWorkers.addAll(List.of("--workers", "ws://127.0.0.1:9001"));
        List<String> bully = List.of("--backend", "bully", "--listen", "127.0.0.1:7401", "--leader-store", "standalone",
                "--workers",
                "ws://127.0.0.1:9001");

        assertThat(parse(Map.of(), args(withWorkers.toArray(String[]::new))).settings().work().orElseThrow()
                .workers()).containsExactly("ws://127.0.0.1:9001");
        assertThat(parse(Map.of("DETECTOR_WORKERS", "ws://127.0.0.1:9001"), args(peer.toArray(String[]::new)))
                .settings().work().orElseThrow().workers()).containsExactly("ws://127.0.0.1:9001");
        assertThat(parse(Map.of(), args(bully.toArray(String[]::new))).settings().work()).isPresent();
        assertUsageError(Map.of(), with(peer, "--workers", "http://127.0.0.1:9001"), "--workers",
                "is not a worker URL");
    }

    @Test
    void anItemsQueryNeedsADatabaseAndWorkersAndIsShownWithoutItsPassword() {
        String db = "jdbc:postgresql://db.internal:5432/app?user=cms&password=s3cret";
        WorkSettings work = settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001",
                "--items-sql", " SELECT * FROM desired_cameras ", "--items-db", db).work().orElseThrow();

        ItemsQuery items = work.items().orElseThrow();
        assertThat(items.sql()).isEqualTo("SELECT * FROM desired_cameras");
        assertThat(items.jdbcUrl()).isEqualTo(db);
        assertThat(items.describeDb()).isEqualTo("jdbc:postgresql://db.internal:5432/app?user=cms&password=***");
        assertThat(items.toString()).doesNotContain("s3cret");

        List<String> memory = List.of("--backend", "memory", "--workers", "ws://127.0.0.1:9001");
        assertUsageError(Map.of(), with(memory, "--items-sql", "SELECT 1"), "--items-sql needs --items-db");
        assertUsageError(Map.of(), with(memory, "--items-db", db), "--items-db needs --items-sql");
        assertUsageError(Map.of(), with(memory, "--items-sql", "SELECT 1", "--items-db",
                "mysql://root:pw@db/app"), "--items-db must be a jdbc:postgresql://", "***@db/app");
        assertUsageError(Map.of(), with(memory, "--items-sql", "  ", "--items-db", db),
                "--items-sql must not be blank");
        assertThat(settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001", "--restart-grace",
                "45s").work().orElseThrow().config().restartGrace()).isEqualTo(java.time.Duration.ofSeconds(45));
        assertUsageError(Map.of(), List.of("--backend", "memory", "--restart-grace", "45s"),
                "--restart-grace needs --workers");
        assertThat(settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001", "--balance", "load")
                .work().orElseThrow().config().planner()).isEqualTo(dev.baton.work.plan.PlannerConfig.load());
        assertThat(settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001")
                .work().orElseThrow().config().planner()).isEqualTo(dev.baton.work.plan.PlannerConfig.defaults());
        assertUsageError(Map.of(), with(memory, "--balance", "cost"), "--balance must be count, weighted or load, "
                + "was 'cost'");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--balance", "load"), "--balance needs --workers");
        assertThat(settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001", "--balance", "load",
                "--imbalance-band", "0.25", "--max-moves-per-round", "8").work().orElseThrow().config().planner())
                .isEqualTo(dev.baton.work.plan.PlannerConfig.load().toBuilder().imbalanceBand(0.25)
                        .maxMovesPerRound(8).build());
        assertUsageError(Map.of(), with(memory, "--balance", "load", "--imbalance-band", "10"),
                "--imbalance-band must be a fraction of the mean load above 0 and below 1 (0.1 is 10%), was 10.0");
        assertUsageError(Map.of(), with(memory, "--balance", "load", "--max-moves-per-round", "-1"),
                "--max-moves-per-round must be 0 or more");
        assertUsageError(Map.of(), with(memory, "--imbalance-band", "0.2"),
                "--imbalance-band needs --balance load");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--max-moves-per-round", "3"),
                "--max-moves-per-round needs --workers");
        assertUsageError(Map.of(), with(memory, "--items-notify", "cameras_changed"),
                "--items-notify needs --items-sql and --items-db");
        assertUsageError(Map.of(), with(memory, "--items-sql", "SELECT 1", "--items-db", db, "--items-notify",
                "cameras-changed"), "--items-notify: notification channel 'cameras-changed': expected lower-case");
        assertThat(settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001", "--items-sql",
                "SELECT 1", "--items-db", db, "--items-notify", "cameras_changed").work().orElseThrow().items()
                .orElseThrow().notifyChannel()).contains("cameras_changed");
        assertUsageError(Map.of(), List.of("--backend", "memory", "--items-sql", "SELECT 1", "--items-db", db),
                "--items-sql needs --workers");
        assertUsageError(Map.of(), List.of("--backend", "peer", "--listen", "127.0.0.1:7401", "--seeds",
                "127.0.0.1:7401", "--cluster-size", "1", "--items-sql", "SELECT 1"), "--items-sql needs --items-db");
        assertThat(settings(Map.of(), "--backend", "quorum", "--listen", "127.0.0.1:7401", "--seeds",
                "127.0.0.1:7401", "--cluster-size", "1", "--workers", "ws://127.0.0.1:9001", "--items-sql", "SELECT 1",
                "--items-db", db).work().orElseThrow().items()).isPresent();
    }

    @Test
    void nodeStartedNamesTheWorkers() {
        NodeSettings settings = settings(Map.of(), "--backend", "memory", "--workers", "ws://127.0.0.1:9001");

        assertThat(new EventJson("n1").nodeStarted(settings, "memory", 42, AT).path("workers").toString())
                .isEqualTo("[\"ws://127.0.0.1:9001\"]");
        assertThat(new EventJson("n1").nodeStarted(settings(Map.of(), "--backend", "memory"), "memory", 42, AT)
                .has("workers")).isFalse();
    }

    @Test
    void workEventsBecomeLinesWithTheWorkerOrItemFirst() {
        EventJson json = new EventJson("n1");
        String w1 = "ws://127.0.0.1:9001";
        String w2 = "ws://127.0.0.1:9002";

        assertThat(line(json, new WorkClusterEvent.WorkerNotice(new WorkerEvent.Online(w1))))
                .isEqualTo("{\"event\":\"worker-online\",\"node\":\"n1\",\"worker\":\"" + w1
                        + "\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
        assertThat(line(json, new WorkClusterEvent.WorkerNotice(new WorkerEvent.Offline(w1, "no state report\nin 10 s"))))
                .isEqualTo("{\"event\":\"worker-offline\",\"node\":\"n1\",\"worker\":\"" + w1
                        + "\",\"reason\":\"no state report; in 10 s\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
        assertThat(line(json, new WorkClusterEvent.WorkerNotice(new WorkerEvent.WebSocketError(w1, "refused"))))
                .contains("\"event\":\"worker-error\"", "\"message\":\"refused\"");
        assertThat(line(json, new WorkClusterEvent.ItemAssigned("d1;c1", w1)))
                .isEqualTo("{\"event\":\"item-assigned\",\"node\":\"n1\",\"item\":\"d1;c1\",\"worker\":\"" + w1
                        + "\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
        assertThat(line(json, new WorkClusterEvent.ItemMoved("d1;c1", w1, w2)))
                .isEqualTo("{\"event\":\"item-moved\",\"node\":\"n1\",\"item\":\"d1;c1\",\"from\":\"" + w1
                        + "\",\"to\":\"" + w2 + "\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
        assertThat(line(json, new WorkClusterEvent.ItemUnassigned("d1;c1", null, "no workers available")))
                .isEqualTo("{\"event\":\"item-unassigned\",\"node\":\"n1\",\"item\":\"d1;c1\",\"from\":null,"
                        + "\"reason\":\"no workers available\",\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    @Test
    void connectionAttemptsAndSingleResultsAreNotLines() {
        EventJson json = new EventJson("n1");
        String w1 = "ws://127.0.0.1:9001";

        for (WorkerEvent quiet : List.of(new WorkerEvent.Connecting(w1, 3), new WorkerEvent.Connected(w1),
                new WorkerEvent.Disconnected(w1, "closed"), new WorkerEvent.DetectionResult(w1, "d1;c1", 1))) {
            assertThat(json.work(new WorkClusterEvent.WorkerNotice(quiet), AT)).as(quiet.name()).isEmpty();
        }
    }

    @Test
    void detectionsSumTheResultsPerWorker() {
        String line = new EventJson("n1").detections(Map.of("ws://b:2", 3L, "ws://a:1", 4L), AT).toString();

        assertThat(line).isEqualTo("{\"event\":\"detections\",\"node\":\"n1\",\"results\":7,"
                + "\"perWorker\":{\"ws://a:1\":4,\"ws://b:2\":3},\"ts\":\"2026-11-21T17:00:00.123Z\"}");
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    private static String line(EventJson json, WorkClusterEvent event) {
        return json.work(event, AT).orElseThrow().toString();
    }

    private static NodeSettings settings(Map<String, String> env, String... args) {
        return parse(env, args(args)).settings();
    }

    private static List<String> args(String... more) {
        List<String> all = new ArrayList<>(List.of("node", "--group", "cameras"));
        all.addAll(List.of(more));
        return all;
    }

    private static void assertUsageError(Map<String, String> env, List<String> flags, String... named) {
        NodeCommand command = parse(env, args(flags.toArray(String[]::new)));
        assertThatThrownBy(command::settings).isInstanceOfSatisfying(CliError.class, e -> {
            assertThat(e.exitCode()).isEqualTo(BatonCli.EXIT_USAGE);
            assertThat(e.getMessage()).contains(named);
            assertThat(BatonCli.oneLine(e.getMessage())).isEqualTo(e.getMessage());
        });
    }

    private static NodeCommand parse(Map<String, String> env, List<String> args) {
        CommandLine cli = new CommandLine(new BatonCli());
        CommandLine.ParseResult result = cli.parseArgs(args.toArray(String[]::new));
        NodeCommand command = (NodeCommand) result.subcommand().commandSpec().userObject();
        command.environment = env::get;
        return command;
    }
}
