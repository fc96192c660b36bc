package dev.baton.bench.work;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.backend.BackendKind;
import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.PostgresBackend;
import dev.baton.bench.stats.LatencyReport;
import dev.baton.bench.stats.Samples;
import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.CoordinationStore;
import dev.baton.testkit.PostgresServer;
import dev.baton.work.WorkCluster;
import dev.baton.work.WorkClusterConfig;
import dev.baton.work.source.JdbcDesiredStateSource;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A change in the database that holds the desired state -> the worker has the command: a row inserted into (or
 * deleted from) the table the work cluster's desired state query reads, committed, reaches a worker as
 * {@code subscribe} (or {@code unsubscribe}). The leader's JDBC source listens on a notification channel that a
 * statement-level trigger on the table notifies; the reconcile interval is the default 30 s, so only the
 * notification can explain a latency far below it. Everything runs on one private PostgreSQL, which is also the
 * coordination store (no Redis at all).
 */
public final class WorkDbChangeScenario implements Scenario {

    private static final String GROUP = "bench-db-change";
    private static final String CHANNEL = "bench_desired_state";
    private static final int WORKERS = 2;
    private static final String QUERY = "SELECT display_id || ';' || camera_id AS subscription_identifier, rtsp_url,"
            + " 42 AS model_id, 'plates' AS model_name, 'https://models.bench/plates.onnx' AS model_url FROM cameras";

    private final CommandArrivals arrivals = new CommandArrivals();

    @Override
    public String name() {
        return "work-db-change";
    }

    @Override
    public String description() {
        return "work cluster: a row committed in the desired state's table -> the worker has the command"
                + " (PostgreSQL NOTIFY from a trigger)";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(200);
        int warmup = options.warmup(20);
        try (PostgresBackend postgres = (PostgresBackend) BenchBackend.start(BackendKind.POSTGRES);
             Connection db = postgres.openConnection()) {
            schema(db);
            List<AutoCloseable> closing = new ArrayList<>();
            try {
                runWith(postgres, db, warmup, n, closing, out);
            } finally {
                // Before the server stops: the cluster, the election and the store go first, quietly.
                for (AutoCloseable c : closing) {
                    try {
                        c.close();
                    } catch (Exception e) {
                        // best effort: the next one still closes
                    }
                }
            }
        }
    }

    /** Starts the workers and the leader (closed by the caller through {@code closing}), then measures. */
    private void runWith(PostgresBackend postgres, Connection db, int warmup, int n, List<AutoCloseable> closing,
            PrintStream out) throws Exception {
        List<SimulatedWorker> workers = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            SimulatedWorker worker = SimulatedWorker.builder().detectionsPerSecond(0).listener(arrivals.listener())
                    .start();
            workers.add(worker);
            closing.add(0, worker);
        }
        WorkCluster cluster = leader(postgres, workers, closing);
        WorkHarness.await("the leader to lead", cluster::isLeading);
        WorkHarness.await("every worker online", () -> cluster.getState().join().workers().stream()
                .allMatch(w -> w.online()));

        out.println("## Work cluster: database change -> worker");
        out.println();
        out.println(postgres.describe() + " The same server is the coordination store and holds the desired"
                + " state's table; a statement-level trigger on it sends pg_notify('" + CHANNEL + "'), and the"
                + " leader's JdbcDesiredStateSource listens (notifyChannel). " + WORKERS + " simulated workers;"
                + " reconcile interval 30 s (the default), so the round cannot explain a latency under it. One"
                + " change at a time; " + warmup + " warm-up changes, then " + n + " measured, per row. Each"
                + " change reloads the whole query (up to " + (warmup + n) + " rows).");
        out.println();
        LatencyReport report = new LatencyReport();
        report.add("INSERT committed -> worker has subscribe", measure(db, warmup, n, true).summary(), null);
        report.add("DELETE committed -> worker told unsubscribe", measure(db, warmup, n, false).summary(), null);
        out.println(report.table());
    }

    private static void schema(Connection db) throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("CREATE TABLE cameras (display_id text, camera_id text, rtsp_url text)");
            s.execute("CREATE FUNCTION cameras_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " PERFORM pg_notify('" + CHANNEL + "', TG_TABLE_NAME); RETURN NULL; END $$");
            s.execute("CREATE TRIGGER cameras_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON cameras"
                    + " FOR EACH STATEMENT EXECUTE FUNCTION cameras_changed()");
        }
    }

    private static WorkCluster leader(PostgresBackend postgres, List<SimulatedWorker> workers,
            List<AutoCloseable> closing) {
        PostgresServer server = postgres.server();
        PGSimpleDataSource items = new PGSimpleDataSource();
        items.setURL(server.jdbcUrl());
        items.setUser(server.user());
        items.setPassword(server.password());
        CoordinationStore store = postgres.connect();
        closing.add(0, store);
        Election election = Baton.election(store).group(GROUP).node(NodeInfo.of("leader", "bench-leader"))
                .config(ElectionConfig.defaults()).build();
        closing.add(0, election);
        WorkCluster cluster = WorkCluster.builder(election, store)
                .workers(workers.stream().map(w -> w.uri().toString()).toList())
                .config(WorkClusterConfig.defaults())
                .source(JdbcDesiredStateSource.builder(items, QUERY).notifyChannel(CHANNEL).build())
                .build();
        closing.add(0, cluster);
        cluster.start();
        election.start();
        return cluster;
    }

    /** Inserts (or deletes) one row per sample and waits for the worker's command. */
    private Samples measure(Connection db, int warmup, int n, boolean insert) throws Exception {
        Samples samples = new Samples(warmup, n);
        String sql = insert ? "INSERT INTO cameras VALUES (?, ?, ?)" : "DELETE FROM cameras WHERE display_id = ?";
        try (PreparedStatement change = db.prepareStatement(sql)) {
            for (int i = 0; i < warmup + n; i++) {
                String display = "display-" + i;
                String id = display + ";camera-" + i;
                CompletableFuture<Long> arrival = arrivals.expect(insert ? "subscribe" : "unsubscribe", id);
                change.setString(1, display);
                if (insert) {
                    change.setString(2, "camera-" + i);
                    change.setString(3, "rtsp://cameras.bench/" + i);
                }
                long start = System.nanoTime();
                change.executeUpdate();
                samples.add(arrival.get(60, TimeUnit.SECONDS) - start);
            }
        }
        return samples;
    }
}
