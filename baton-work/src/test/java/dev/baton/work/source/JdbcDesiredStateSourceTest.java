package dev.baton.work.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Registration;

import dev.baton.testkit.PostgresServer;
import dev.baton.work.WorkItem;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The JDBC source on a private PostgreSQL: displays, cameras and models joined into items, and changes signalled by
 * a trigger's notifications.
 */
class JdbcDesiredStateSourceTest {

    private static final String QUERY = """
            SELECT d.id || ';' || c.id AS subscription_identifier, c.rtsp_url, m.id AS model_id,
                   m.name AS model_name, c.snapshot_url, c.snapshot_interval, d.crop_x1, d.crop_y1, d.crop_x2,
                   d.crop_y2, d.created_at
              FROM display d JOIN camera c ON c.id = d.camera_id JOIN model m ON m.id = d.model_id
             WHERE d.active
             ORDER BY 1""";

    private static PostgresServer postgres;
    private static DataSource dataSource;

    @BeforeAll
    static void database() throws SQLException {
        postgres = PostgresServer.start();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(postgres.jdbcUrl());
        ds.setUser(postgres.user());
        ds.setPassword(postgres.password());
        dataSource = ds;
        execute("""
                CREATE TABLE camera (id text PRIMARY KEY, rtsp_url text NOT NULL, snapshot_url text,
                                     snapshot_interval bigint);
                CREATE TABLE model (id bigint PRIMARY KEY, name text NOT NULL);
                CREATE TABLE display (id text PRIMARY KEY, camera_id text REFERENCES camera, model_id bigint
                                      REFERENCES model, active boolean NOT NULL, crop_x1 int, crop_y1 int,
                                      crop_x2 int, crop_y2 int, created_at timestamptz);
                INSERT INTO camera VALUES ('cam-1', 'rtsp://10.0.0.1/live', 'http://10.0.0.1/snap.jpg', 5000),
                                          ('cam-2', 'rtsp://10.0.0.2/live', NULL, NULL);
                INSERT INTO model VALUES (42, 'vehicle-detection-v2');
                INSERT INTO display VALUES
                    ('display-1', 'cam-1', 42, true, 100, 50, 800, 600, '2026-01-31T12:00:00Z'),
                    ('display-2', 'cam-2', 42, true, NULL, NULL, NULL, NULL, NULL),
                    ('display-3', 'cam-2', 42, false, NULL, NULL, NULL, NULL, NULL),
                    ('display-4', 'cam-1', 42, true, 10, 10, 5, 20, NULL);
                """);
    }

    @AfterAll
    static void stop() {
        if (postgres != null) {
            postgres.close();
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void rowsBecomeItemsByColumnNameAndInvalidRowsAreSkipped() throws Exception {
        List<WorkItem> items = JdbcDesiredStateSource.builder(dataSource, QUERY).build().load();

        // display-3 is inactive; display-4's crop box has x2 <= x1 and is skipped with a warning.
        assertThat(items).containsExactly(
                new WorkItem("display-1;cam-1", "rtsp://10.0.0.1/live", 42L, "vehicle-detection-v2", null,
                        "http://10.0.0.1/snap.jpg", 5000L, 100, 50, 800, 600, null, "2026-01-31T12:00:00Z"),
                new WorkItem("display-2;cam-2", "rtsp://10.0.0.2/live", 42L, "vehicle-detection-v2", null, null,
                        null, null, null, null, null, null, null));
    }

    @Test
    void aCustomMapperAndCamelCaseColumnsWork() throws Exception {
        JdbcDesiredStateSource camel = JdbcDesiredStateSource.builder(dataSource, """
                SELECT d.id || ';' || c.id AS "subscriptionIdentifier", c.rtsp_url AS "rtspUrl", 7 AS "modelId",
                       'plates' AS "modelName" FROM display d JOIN camera c ON c.id = d.camera_id
                 WHERE d.id = 'display-2'""").queryTimeout(Duration.ofSeconds(5)).build();
        assertThat(camel.load()).extracting(WorkItem::subscriptionIdentifier, WorkItem::modelId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("display-2;cam-2", 7L));

        JdbcDesiredStateSource custom = JdbcDesiredStateSource.builder(dataSource, "SELECT id FROM camera ORDER BY id")
                .mapper(row -> WorkItem.builder("all;" + row.getString("id")).rtspUrl("rtsp://x/" + row.getString(1))
                        .model(1, "m").build())
                .build();
        assertThat(custom.load()).extracting(WorkItem::subscriptionIdentifier).containsExactly("all;cam-1",
                "all;cam-2");
    }

    @Test
    void aQueryWithoutARequiredColumnOrThatFailsFailsTheLoad() {
        assertThatThrownBy(() -> JdbcDesiredStateSource.builder(dataSource, "SELECT id FROM camera").build().load())
                .isInstanceOf(SQLException.class)
                .hasMessageStartingWith("the desired state query has no column 'subscriptionidentifier'");
        assertThatThrownBy(() -> JdbcDesiredStateSource.builder(dataSource, "SELECT * FROM nowhere").build().load())
                .isInstanceOf(SQLException.class).hasMessageContaining("nowhere");
    }

    @Test
    void aChannelPostgresWouldNotTakeUnquotedIsRefusedWithTheRule() {
        assertThatThrownBy(() -> JdbcDesiredStateSource.builder(dataSource, QUERY).notifyChannel("Desired-State"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("notification channel 'Desired-State': expected lower-case letters");
    }

    @Test
    void withoutAChannelTheWatchSignalsNothing() {
        AtomicInteger signals = new AtomicInteger();
        try (Registration watch = JdbcDesiredStateSource.builder(dataSource, QUERY).build()
                .watch(signals::incrementAndGet)) {
            assertThat(watch).isNotNull();
        }
        assertThat(signals).hasValue(0);
    }

    @Test
    void aTriggersNotificationSignalsTheWatchAndALostListenerComesBackAndSignals() throws Exception {
        execute("""
                CREATE TABLE schedule (id int PRIMARY KEY, display_id text);
                CREATE FUNCTION desired_state_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  PERFORM pg_notify('desired_state', TG_TABLE_NAME);
                  RETURN NULL;
                END $$;
                CREATE TRIGGER schedule_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON schedule
                  FOR EACH STATEMENT EXECUTE FUNCTION desired_state_changed();
                """);
        AtomicInteger signals = new AtomicInteger();
        JdbcDesiredStateSource source = JdbcDesiredStateSource.builder(dataSource, QUERY)
                .notifyChannel("desired_state").build();
        try (Registration watch = source.watch(signals::incrementAndGet)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> listeners() == 1);
            assertThat(signals).hasValue(0);

            execute("INSERT INTO schedule VALUES (1, 'display-1')");
            await().atMost(Duration.ofSeconds(30)).until(() -> signals.get() >= 1);

            int before = signals.get();
            execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN desired_state'");
            // Back on a new connection, it signals once: a change made while nobody listened would be lost.
            await().atMost(Duration.ofSeconds(30)).until(() -> signals.get() > before && listeners() == 1);

            int afterReconnect = signals.get();
            execute("UPDATE schedule SET display_id = 'display-2'");
            await().atMost(Duration.ofSeconds(30)).until(() -> signals.get() > afterReconnect);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> listeners() == 0);
    }

    /** The server's sessions whose last statement was the watch's LISTEN. */
    private static int listeners() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             var rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN desired_state'")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
