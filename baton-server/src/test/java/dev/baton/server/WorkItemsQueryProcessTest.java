package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.PostgresServer;
import dev.baton.worker.sim.SimulatedWorker;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code baton node --workers … --items-sql … --items-db …}: the desired items come from a query on a private
 * PostgreSQL (seed 001's "the database is the source of truth") as well as from {@code PUT /work/items}; a row added
 * later runs after {@code POST /work/regenerate}; a query that fails ends the node at start with one line.
 */
class WorkItemsQueryProcessTest {

    private static final String QUERY = "SELECT display_id || ';' || camera_id AS subscription_identifier, rtsp_url,"
            + " model_id, model_name, 'https://models.example/' || model_name || '.onnx' AS model_url FROM cameras";
    private static final Duration PATIENCE = Duration.ofSeconds(40);

    private final NodeGroup nodes = new NodeGroup();
    private final List<SimulatedWorker> workers = new ArrayList<>();
    private PostgresServer postgres;

    @BeforeEach
    void start() throws SQLException {
        postgres = PostgresServer.start();
        sql("CREATE TABLE cameras (display_id text, camera_id text, rtsp_url text, model_id int, model_name text)",
                "INSERT INTO cameras VALUES ('display-1', 'camera-1', 'rtsp://cameras/1', 42, 'plates'),"
                        + " ('display-2', 'camera-2', 'rtsp://cameras/2', 42, 'plates')");
        for (int i = 0; i < 2; i++) {
            workers.add(SimulatedWorker.builder().reportInterval(Duration.ofSeconds(1)).detectionsPerSecond(0)
                    .start());
        }
    }

    @AfterEach
    void stop() {
        try {
            nodes.close();
        } finally {
            workers.forEach(SimulatedWorker::close);
            postgres.close();
        }
    }

    @Test
    void queriedAndStoredItemsRunAndANewRowRunsAfterARegenerationNotice() throws SQLException {
        int port = NginxProcess.freeLoopbackPort();
        String api = "http://127.0.0.1:" + port;
        NodeProcess node = nodes.start("n1", "--backend", "memory", "--group", "cameras", "--profile", "fast",
                "--http", "127.0.0.1:" + port, "--workers", workers.get(0).uri() + "," + workers.get(1).uri(),
                "--items-sql", QUERY, "--items-db", itemsDb());

        await().atMost(PATIENCE).untilAsserted(() -> assertThat(running())
                .containsExactly("display-1;camera-1", "display-2;camera-2"));
        assertThat(node.lines().get(0).path("itemsDb").asText()).endsWith("password=***");

        assertThat(WorkHttp.putItem(api, "display-9%3Bcamera-9", "rtsp://cameras/9").statusCode()).isEqualTo(201);
        sql("INSERT INTO cameras VALUES ('display-3', 'camera-3', 'rtsp://cameras/3', 42, 'plates')");
        HttpResponse<String> regenerate = WorkHttp.send(HttpRequest.newBuilder(URI.create(api + "/work/regenerate"))
                .POST(HttpRequest.BodyPublishers.noBody()));

        assertThat(regenerate.statusCode()).as(regenerate.body()).isEqualTo(202);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(running()).containsExactly("display-1;camera-1",
                "display-2;camera-2", "display-3;camera-3", "display-9;camera-9"));
        assertThat(workers).allSatisfy(w -> assertThat(w.subscriptions()).hasSize(2));
        assertThat(node.notJson()).isEmpty();
    }

    @Test
    void aRowAddedLaterRunsOnATriggersNotificationWithoutARegenerationRequest() throws SQLException {
        sql("CREATE FUNCTION cameras_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " PERFORM pg_notify('cameras_changed', TG_TABLE_NAME); RETURN NULL; END $$",
                "CREATE TRIGGER cameras_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON cameras"
                        + " FOR EACH STATEMENT EXECUTE FUNCTION cameras_changed()");
        // The default profile reloads the desired state every 30 s: the row below must run well before that.
        NodeProcess node = nodes.start("n1", "--backend", "memory", "--group", "cameras",
                "--workers", workers.get(0).uri() + "," + workers.get(1).uri(),
                "--items-sql", QUERY, "--items-db", itemsDb(), "--items-notify", "cameras_changed");
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(running())
                .containsExactly("display-1;camera-1", "display-2;camera-2"));

        sql("INSERT INTO cameras VALUES ('display-3', 'camera-3', 'rtsp://cameras/3', 42, 'plates')");

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(running())
                .containsExactly("display-1;camera-1", "display-2;camera-2", "display-3;camera-3"));
        assertThat(node.notJson()).isEmpty();
    }

    @Test
    void aQueryThatFailsEndsTheNodeAtStartWithOneLine() {
        NodeProcess node = nodes.start("n1", "--backend", "memory", "--group", "cameras", "--workers",
                workers.get(0).uri().toString(), "--items-sql", "SELECT * FROM no_such_table", "--items-db",
                itemsDb());

        int exit = node.awaitExit(PATIENCE);

        assertThat(exit).as(node.describe()).isEqualTo(BatonCli.EXIT_USAGE);
        String error = node.stderr().lines().filter(line -> line.startsWith("baton: error: ")).findFirst()
                .orElseThrow(() -> new AssertionError(node.describe()));
        assertThat(error).contains("--items-sql failed", "no_such_table").doesNotContain(postgres.password());
        assertThat(node.stderr()).doesNotContain("\tat ");
        assertThat(node.lines()).isEmpty();
    }

    private String itemsDb() {
        return postgres.jdbcUrl() + "?user=" + postgres.user() + "&password=" + postgres.password();
    }

    /** Every item the workers run, sorted. */
    private Set<String> running() {
        Set<String> all = new TreeSet<>();
        workers.forEach(w -> all.addAll(w.subscriptions()));
        return all;
    }

    private void sql(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }


}
