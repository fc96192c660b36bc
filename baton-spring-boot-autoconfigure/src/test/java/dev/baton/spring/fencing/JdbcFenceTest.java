package dev.baton.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Leadership;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.LeadershipNotValidException;
import dev.baton.core.fencing.StaleTermException;
import dev.baton.postgres.PostgresFencing;
import dev.baton.spring.autoconfigure.BatonAutoConfiguration;
import dev.baton.spring.autoconfigure.BatonFencingAutoConfiguration;
import dev.baton.testkit.FakeClock;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@link JdbcFence} and the PostgreSQL backend's fencing beans on a private PostgreSQL server. */
class JdbcFenceTest {

    private static PostgresServer postgres;
    private static DataSource dataSource;

    @BeforeAll
    static void startPostgres() throws SQLException {
        postgres = PostgresServer.start();
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setUrl(postgres.jdbcUrl());
        source.setUser(postgres.user());
        source.setPassword(postgres.password());
        dataSource = source;
        try (Connection connection = dataSource.getConnection(); Statement create = connection.createStatement()) {
            create.execute("CREATE TABLE IF NOT EXISTS reports (term BIGINT NOT NULL)");
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aNewerTermIsAdmittedAndAnOlderOneRefusedWithNothingWritten() throws SQLException {
        JdbcFence fence = new JdbcFence(dataSource);
        assertThat(fence.<Integer>execute("reports-a", 7, connection -> insert(connection, 7))).isEqualTo(1);
        assertThat(fence.<Integer>execute("reports-a", 7, connection -> insert(connection, 7))).isEqualTo(1);
        assertThat(fence.<Integer>execute("reports-a", 9, connection -> insert(connection, 9))).isEqualTo(1);

        assertThatThrownBy(() -> fence.execute("reports-a", 8, connection -> insert(connection, 8)))
                .isInstanceOf(StaleTermException.class)
                .satisfies(e -> assertThat(((StaleTermException) e).currentTerm()).isEqualTo(9));
        assertThat(count(8)).isZero();
        assertThat(fence.highestTerm("reports-a")).isEqualTo(OptionalLong.of(9));
        assertThat(fence.highestTerm("never-written")).isEmpty();
    }

    @Test
    void aFailingWorkRollsTheTermBackToo() throws SQLException {
        JdbcFence fence = new JdbcFence(dataSource);
        fence.execute("reports-b", 3, connection -> insert(connection, 3));
        assertThatThrownBy(() -> fence.execute("reports-b", 5, connection -> {
            insert(connection, 5);
            throw new SQLException("the work failed");
        })).hasMessage("the work failed");
        assertThat(count(5)).isZero();
        assertThat(fence.highestTerm("reports-b")).isEqualTo(OptionalLong.of(3));
    }

    @Test
    void aLeadershipPastItsDeadlineIsRefusedBeforeAnyNewerTermHasWritten() throws SQLException {
        FakeClock clock = new FakeClock();
        Leadership deposed = new Leadership("reports", "node-a", 17, clock.nanoTime() + 1_000_000, clock, term -> true);
        clock.advance(Duration.ofMillis(1));
        JdbcFence fence = new JdbcFence(dataSource);
        AtomicBoolean ran = new AtomicBoolean();

        assertThatThrownBy(() -> fence.execute("reports-c", deposed, connection -> {
            ran.set(true);
            return insert(connection, 17);
        })).isInstanceOf(LeadershipNotValidException.class)
                .hasMessage("leadership of term 17 is no longer valid (its local deadline passed or it was lost); "
                        + "not writing")
                .satisfies(e -> assertThat(((LeadershipNotValidException) e).term()).isEqualTo(17));
        assertThat(ran).as("the work must not run").isFalse();
        assertThat(count(17)).isZero();
        assertThat(fence.highestTerm("reports-c")).as("the term must not be admitted").isEmpty();
    }

    @Test
    void aLeadershipThatLapsesWhileItsWorkRunsIsRolledBackBeforeTheCommit() throws SQLException {
        FakeClock clock = new FakeClock();
        Leadership leadership = new Leadership("reports", "node-a", 21, clock.nanoTime() + 1_000_000, clock,
                term -> true);
        JdbcFence fence = new JdbcFence(dataSource);

        assertThatThrownBy(() -> fence.execute("reports-d", leadership, connection -> {
            int inserted = insert(connection, 21);
            clock.advance(Duration.ofMillis(1)); // the process is paused past its deadline mid-work
            return inserted;
        })).isInstanceOf(LeadershipNotValidException.class);
        assertThat(count(21)).isZero();
        assertThat(fence.highestTerm("reports-d")).isEmpty();
    }

    @Test
    void aValidLeadershipWritesUnderItsTerm() throws SQLException {
        FakeClock clock = new FakeClock();
        Leadership leadership = new Leadership("reports", "node-a", 23, clock.nanoTime() + 1_000_000, clock,
                term -> true);
        JdbcFence fence = new JdbcFence(dataSource);

        assertThat(fence.<Integer>execute("reports-e", leadership, connection -> insert(connection, 23))).isEqualTo(1);
        assertThat(count(23)).isEqualTo(1);
        assertThat(fence.highestTerm("reports-e")).isEqualTo(OptionalLong.of(23));
    }

    @Test
    void aTableNameThatIsNotAPlainSqlNameIsRefused() {
        assertThatThrownBy(() -> new JdbcFence(dataSource, "fence; DROP TABLE reports"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("fence table must be a plain");
    }

    @Test
    void thePostgresBackendWithADataSourceGetsBothGuards() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class,
                        BatonFencingAutoConfiguration.class))
                .withBean(DataSource.class, () -> dataSource)
                .withPropertyValues("baton.backend=" + postgres.uri(), "baton.group=pg-reports", "baton.profile=fast")
                .run(context -> {
                    assertThat(context).hasSingleBean(PostgresFencing.class).hasSingleBean(JdbcFence.class);
                    StoreElection election = context.getBean(StoreElection.class);
                    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);
                    long term = election.leadership().orElseThrow().term();
                    PostgresFencing guard = context.getBean(PostgresFencing.class);
                    assertThat(guard.<Integer>execute(dataSource, term, connection -> insert(connection, term))).isEqualTo(1);
                    assertThatThrownBy(() -> guard.execute(dataSource, term - 1, connection -> insert(connection, 1)))
                            .isInstanceOf(StaleTermException.class);
                });
    }

    private static int insert(Connection connection, long term) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO reports (term) VALUES (?)")) {
            insert.setLong(1, term);
            return insert.executeUpdate();
        }
    }

    private static long count(long term) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT count(*) FROM reports WHERE term = ?")) {
            select.setLong(1, term);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
