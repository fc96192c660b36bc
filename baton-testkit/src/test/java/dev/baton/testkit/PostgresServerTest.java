package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class PostgresServerTest {

    private static final Duration GENEROUS = Duration.ofSeconds(30);
    private static final Duration HANG = Duration.ofMillis(500);

    private static final ExecutorService CLIENTS = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "postgres-server-test-client");
        thread.setDaemon(true);
        return thread;
    });

    @AfterAll
    static void stopClients() {
        CLIENTS.shutdownNow();
    }

    @Test
    void startedServerAnswersQueriesAsBatonInDatabaseBaton() throws SQLException {
        try (PostgresServer pg = PostgresServer.start();
             Connection connection = connect(pg)) {
            assertThat(pg.host()).isEqualTo("127.0.0.1");
            assertThat(pg.database()).isEqualTo("baton");
            assertThat(pg.user()).isEqualTo("baton");
            assertThat(pg.isRunning()).isTrue();
            assertThat(queryString(connection, "select 1")).isEqualTo("1");
            assertThat(queryString(connection, "select current_database() || '/' || current_user"))
                    .isEqualTo("baton/baton");
            long backend = Long.parseLong(queryString(connection, "select pg_backend_pid()"));
            assertThat(ProcessHandle.of(pg.pid()).orElseThrow().descendants().map(ProcessHandle::pid))
                    .as("the connection's backend is a child of the postmaster pid()")
                    .contains(backend);
        }
    }

    @Test
    void urlsNameThePortDatabaseAndCredentials() {
        try (PostgresServer pg = PostgresServer.start()) {
            assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + pg.port() + "/baton");
            assertThat(pg.uri())
                    .isEqualTo("postgresql://baton:" + pg.password() + "@127.0.0.1:" + pg.port() + "/baton");
            assertThat(pg.password()).matches("[A-Za-z0-9]{24}");
        }
    }

    @Test
    void chosenPasswordIsRequiredAndEncodedInTheUri() throws SQLException {
        try (PostgresServer pg = PostgresServer.builder().password("p@ss word/1").start()) {
            assertThat(pg.uri()).startsWith("postgresql://baton:p%40ss%20word%2F1@127.0.0.1:");
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select 1")).isEqualTo("1");
            }
            assertThatThrownBy(() -> DriverManager.getConnection(pg.jdbcUrl(), "baton", "wrong"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("password authentication failed");
        }
    }

    @Test
    void stoppedServerRestartsOnTheSamePortWithItsData() throws SQLException {
        try (PostgresServer pg = PostgresServer.start()) {
            int port = pg.port();
            long firstPid = pg.pid();
            try (Connection connection = connect(pg)) {
                execute(connection, "create table kept (v text)", "insert into kept values ('before stop')");
            }

            pg.stop();
            assertThat(pg.isRunning()).isFalse();
            assertThatThrownBy(() -> connect(pg)).isInstanceOf(SQLException.class);

            pg.restart();
            assertThat(pg.port()).isEqualTo(port);
            assertThat(pg.pid()).isNotEqualTo(firstPid);
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select v from kept")).isEqualTo("before stop");
            }
        }
    }

    @Test
    void killedServerDiesWithAllItsProcessesAndRecoversItsCommittedData() throws SQLException, IOException {
        try (PostgresServer pg = PostgresServer.start()) {
            Connection open = connect(pg);
            execute(open, "create table kept (v text)", "insert into kept values ('before crash')");
            long backend = Long.parseLong(queryString(open, "select pg_backend_pid()"));
            List<Long> processes = PostgresProcesses.tree(pg.pid());
            assertThat(processes).contains(backend).hasSizeGreaterThan(3); // checkpointer, WAL writer, ...

            pg.kill();
            assertThat(pg.isRunning()).isFalse();
            assertThat(processes).noneMatch(PostgresProcesses::isAlive);
            assertThatThrownBy(() -> queryString(open, "select 1")).isInstanceOf(SQLException.class);
            open.close();

            pg.restart();
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select v from kept")).isEqualTo("before crash");
            }
            assertThat(Files.readString(pg.directory().resolve("postgres.log"), StandardCharsets.UTF_8))
                    .contains("not properly shut down; automatic recovery in progress");
        }
    }

    @Test
    void restoredSchemaHasTheSnapshotsRowsAndSequencesAfterACrashRestart() throws SQLException {
        try (PostgresServer pg = PostgresServer.start()) {
            int port = pg.port();
            long firstPid = pg.pid();
            try (Connection connection = connect(pg)) {
                execute(connection, "create schema app", "create schema other",
                        "create table app.items (id bigserial primary key, v text)",
                        "create table app.owners (item bigint references app.items (id), who text)",
                        "create table other.kept (v text)",
                        "insert into app.items (v) values ('one'), ('two')",
                        "insert into app.owners values (1, 'a')");
            }

            PostgresServer.SchemaSnapshot snapshot = pg.snapshotSchema("app");

            try (Connection connection = connect(pg)) {
                execute(connection, "delete from app.owners", "update app.items set v = 'changed'",
                        "insert into app.items (v) values ('three')", "create table app.later (v text)",
                        "insert into app.later values ('new')", "insert into other.kept values ('outside')");
            }
            pg.restoreSchema(snapshot);

            assertThat(snapshot.schema()).isEqualTo("app");
            assertThat(pg.port()).isEqualTo(port);
            assertThat(pg.pid()).as("a new postmaster").isNotEqualTo(firstPid);
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select string_agg(id || '=' || v, ',' order by id) from app.items"))
                        .isEqualTo("1=one,2=two");
                assertThat(queryString(connection, "select who from app.owners where item = 1")).isEqualTo("a");
                assertThat(queryString(connection, "select count(*) from app.later")).isEqualTo("0");
                assertThat(queryString(connection, "select v from other.kept")).as("other schemas keep their rows")
                        .isEqualTo("outside");
                assertThat(queryString(connection, "insert into app.items (v) values ('next') returning id"))
                        .as("the sequence is back where the snapshot found it").isEqualTo("3");
            }
        }
    }

    @Test
    void aSnapshotCanBeRestoredAgainAndSurvivesLaterChanges() throws SQLException {
        try (PostgresServer pg = PostgresServer.start()) {
            try (Connection connection = connect(pg)) {
                execute(connection, "create schema app", "create table app.t (v text)",
                        "insert into app.t values ('snapshot')");
            }
            PostgresServer.SchemaSnapshot snapshot = pg.snapshotSchema("app");
            for (String later : List.of("first", "second")) {
                try (Connection connection = connect(pg)) {
                    execute(connection, "update app.t set v = '" + later + "'");
                }
                pg.restoreSchema(snapshot);
                try (Connection connection = connect(pg)) {
                    assertThat(queryString(connection, "select v from app.t")).isEqualTo("snapshot");
                }
            }
        }
    }

    @Test
    void snapshotOfAMissingSchemaOrRestoreOnAnotherServerIsRefused() throws SQLException {
        try (PostgresServer pg = PostgresServer.start(); PostgresServer other = PostgresServer.start()) {
            try (Connection connection = connect(pg)) {
                execute(connection, "create schema app");
            }
            assertThatThrownBy(() -> pg.snapshotSchema("missing"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("schema missing does not exist on PostgresServer[");
            PostgresServer.SchemaSnapshot snapshot = pg.snapshotSchema("app");
            assertThatThrownBy(() -> other.restoreSchema(snapshot))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was taken on another server");
        }
    }

    @Test
    void pausedServerAnswersNothingUntilResumed() throws Exception {
        try (PostgresServer pg = PostgresServer.start();
             Connection open = connect(pg);
             Connection withTimeout = connect(pg, "socketTimeout", "1")) {
            pg.pause();
            assertThat(pg.isRunning()).isTrue();
            assertThat(PostgresProcesses.tree(pg.pid())).allMatch(PostgresServerTest::isStopped);

            assertThatThrownBy(() -> queryString(withTimeout, "select 1"))
                    .isInstanceOf(SQLException.class)
                    .hasRootCauseInstanceOf(SocketTimeoutException.class);
            assertThatThrownBy(() -> connect(pg, "loginTimeout", "1"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("timed out");
            CompletableFuture<String> hanging = CompletableFuture.supplyAsync(() -> query(open, "select 2"), CLIENTS);
            await().during(HANG).atMost(HANG.multipliedBy(4)).until(() -> !hanging.isDone());

            pg.resume();
            await().atMost(GENEROUS).until(hanging::isDone);
            assertThat(hanging.get()).isEqualTo("2");
            try (Connection fresh = connect(pg)) {
                assertThat(queryString(fresh, "select 3")).isEqualTo("3");
            }
        }
    }

    @Test
    void pausedServerCanBeStoppedAndRestarted() throws SQLException {
        try (PostgresServer pg = PostgresServer.start()) {
            pg.pause();
            pg.stop();
            assertThat(pg.isRunning()).isFalse();

            pg.restart();
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select 1")).isEqualTo("1");
            }
        }
    }

    @Test
    void closeStopsTheServerAndRemovesItsDirectoryAndIsIdempotent() {
        PostgresServer pg = PostgresServer.start();
        Path dir = pg.directory();
        long pid = pg.pid();
        assertThat(dir.resolve("data")).isDirectory();

        pg.close();
        pg.close();

        assertThat(pg.isRunning()).isFalse();
        assertThat(PostgresProcesses.isAlive(pid)).isFalse();
        assertThat(Files.exists(dir)).isFalse();
        assertThatThrownBy(pg::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void twoServersRunSideBySideWithSeparateData() throws SQLException {
        try (PostgresServer first = PostgresServer.start();
             PostgresServer second = PostgresServer.start();
             Connection one = connect(first);
             Connection two = connect(second)) {
            assertThat(first.port()).isNotEqualTo(second.port());
            assertThat(first.directory()).isNotEqualTo(second.directory());

            execute(one, "create table only_in_first (v int)");

            assertThat(queryString(one, "select count(*) from pg_tables where tablename = 'only_in_first'"))
                    .isEqualTo("1");
            assertThat(queryString(two, "select count(*) from pg_tables where tablename = 'only_in_first'"))
                    .isEqualTo("0");
        }
    }

    @Test
    void portAlreadyTakenFailsWithTheLogTail() {
        try (PostgresServer first = PostgresServer.start()) {
            assertThatThrownBy(() -> PostgresServer.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("log tail")
                    .hasMessageContaining("Address already in use");
        }
    }

    @Test
    void embeddedBinariesServeTheSameServer() throws SQLException, IOException {
        PostgresBinaries embedded = PostgresBinaries.embedded();
        assertThat(embedded.directory()).startsWith(Path.of(System.getProperty("java.io.tmpdir")).toRealPath());
        assertThat(embedded.version()).contains("PostgreSQL) 17.");

        try (PostgresServer pg = PostgresServer.builder().embeddedBinaries().start()) {
            try (Connection connection = connect(pg)) {
                execute(connection, "create table kept (v text)", "insert into kept values ('embedded')");
                assertThat(queryString(connection, "show server_version")).startsWith("17.");
            }
            pg.kill();
            pg.restart();
            try (Connection connection = connect(pg)) {
                assertThat(queryString(connection, "select v from kept")).isEqualTo("embedded");
            }
        }
    }

    @Test
    void binariesNameTheVersionTheDirectoryAndTheAccount() {
        assertThat(PostgresServer.binaries())
                .contains("PostgreSQL")
                .contains(PostgresBinaries.resolve().directory().toString())
                .contains(" run as ");
    }

    private static Connection connect(PostgresServer pg, String... extraProperties) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", pg.user());
        properties.setProperty("password", pg.password());
        properties.setProperty("connectTimeout", "10");
        for (int i = 0; i < extraProperties.length; i += 2) {
            properties.setProperty(extraProperties[i], extraProperties[i + 1]);
        }
        return DriverManager.getConnection(pg.jdbcUrl(), properties);
    }

    private static void execute(Connection connection, String... statements) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            assertThat(result.next()).isTrue();
            return result.getString(1);
        }
    }

    private static String query(Connection connection, String sql) {
        try {
            return queryString(connection, sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** State 'T' in /proc/PID/stat: stopped by a signal. */
    private static boolean isStopped(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
        } catch (IOException e) {
            return false;
        }
    }
}
