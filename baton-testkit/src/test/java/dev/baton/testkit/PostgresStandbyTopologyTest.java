package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A PostgreSQL primary with a streaming standby, started privately; the test takes a few seconds. */
@Timeout(60)
class PostgresStandbyTopologyTest {

    @Test
    void theStandbyFollowsLagsOnRequestAndBecomesWritableAfterPromotion() throws SQLException {
        Optional<String> unavailable = PostgresStandbyTopology.whyUnavailable();
        assumeTrue(unavailable.isEmpty(), () -> "skipping the standby topology: " + unavailable.orElseThrow());
        List<Integer> ports;
        try (PostgresStandbyTopology pg = PostgresStandbyTopology.start()) {
            ports = List.of(pg.primary().port(), pg.standbyPort());
            assertThat(pg.multiHostJdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + pg.primary().port()
                    + ",127.0.0.1:" + pg.standbyPort() + "/baton?targetServerType=primary");
            execute(pg, pg.primaryJdbcUrl(), "CREATE TABLE leader (term int)");
            execute(pg, pg.primaryJdbcUrl(), "INSERT INTO leader VALUES (1)");
            pg.awaitStandbyCaughtUp();
            assertThat(single(pg, pg.standbyJdbcUrl(), "SELECT max(term) FROM leader")).isEqualTo(1);
            assertThatThrownBy(() -> execute(pg, pg.standbyJdbcUrl(), "INSERT INTO leader VALUES (9)"))
                    .hasMessageContaining("read-only");

            pg.pauseReplay();
            execute(pg, pg.primaryJdbcUrl(), "INSERT INTO leader VALUES (2)");
            assertThat(single(pg, pg.standbyJdbcUrl(), "SELECT max(term) FROM leader")).isEqualTo(1);
            pg.resumeReplay();
            pg.awaitStandbyCaughtUp();
            assertThat(single(pg, pg.standbyJdbcUrl(), "SELECT max(term) FROM leader")).isEqualTo(2);

            pg.killPrimary();
            assertThat(pg.isStandbyInRecovery()).isTrue();
            pg.promoteStandby();

            assertThat(pg.isStandbyInRecovery()).isFalse();
            // The multi-host URL now finds the promoted standby as the writable server.
            execute(pg, pg.multiHostJdbcUrl(), "INSERT INTO leader VALUES (3)");
            assertThat(single(pg, pg.standbyJdbcUrl(), "SELECT max(term) FROM leader")).isEqualTo(3);
        }
        assertThat(ports).noneMatch(PostgresStandbyTopologyTest::accepts);
    }

    @Test
    void aTopologyStartedWithAPasswordAcceptsItOnBothServers() throws SQLException {
        Optional<String> unavailable = PostgresStandbyTopology.whyUnavailable();
        assumeTrue(unavailable.isEmpty(), () -> "skipping the standby topology: " + unavailable.orElseThrow());

        try (PostgresStandbyTopology pg = PostgresStandbyTopology.start("chosen-Pass-42")) {

            assertThat(pg.password()).isEqualTo("chosen-Pass-42");
            assertThat(single(pg, pg.primaryJdbcUrl(), "SELECT 1")).isEqualTo(1);
            assertThat(single(pg, pg.standbyJdbcUrl(), "SELECT pg_is_in_recovery()")).isEqualTo(true);
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void execute(PostgresStandbyTopology pg, String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, pg.user(), pg.password());
                Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    private static Object single(PostgresStandbyTopology pg, String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, pg.user(), pg.password());
                Statement statement = c.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getObject(1);
        }
    }
}
