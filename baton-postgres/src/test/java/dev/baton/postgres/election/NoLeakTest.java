package dev.baton.postgres.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.core.NodeInfo;
import dev.baton.postgres.PostgresStore;
import dev.baton.postgres.PostgresStoreOptions;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Stores and elections give back every thread and connection they took, however and whenever they are stopped. */
class NoLeakTest {

    private static final Duration SETTLE = Duration.ofSeconds(15);

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    private static Set<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> !name.startsWith("ForkJoinPool") && !name.startsWith("surefire")
                        && !name.startsWith("Attach") && !name.startsWith("process reaper")
                        && !name.startsWith("awaitility")
                        // The JVM's shared election and listener pools keep idle threads for a minute: reused, not
                        // leaked (the Redis NoLeakTest bounds their number).
                        && !name.startsWith("baton-election") && !name.startsWith("baton-listener"))
                .collect(Collectors.toSet());
    }

    private static Set<String> storeThreads() {
        return liveThreads().stream().filter(name -> name.startsWith("baton-pg-")).collect(Collectors.toSet());
    }

    /** Backends whose application_name starts with {@code prefix}: the pools' and the LISTEN connections. */
    private static long backends(String prefix) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity "
                     + "WHERE application_name LIKE ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, prefix + "%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The backends behind {@link #backends}, for a failure message. */
    private static String describeBackends(String prefix) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             PreparedStatement ps = c.prepareStatement("SELECT pid, application_name, state, query, backend_start "
                     + "FROM pg_stat_activity WHERE application_name LIKE ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, prefix + "%");
            StringBuilder rows = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.append("\n  pid ").append(rs.getLong(1)).append(' ').append(rs.getString(2)).append(' ')
                            .append(rs.getString(3)).append(" since ").append(rs.getObject(5)).append(": ")
                            .append(rs.getString(4));
                }
            }
            return rows.toString();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PostgresStore store(String app) {
        return PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).applicationName(app)
                .statementTimeout(Duration.ofSeconds(1)).connectTimeout(Duration.ofMillis(500)).build());
    }

    private static Election election(PostgresStore store, String group, String id) {
        return election(store, group, id, true);
    }

    /** With {@code sessions} false, a lease with a TTL of its own and a registry entry, as before sessions. */
    private static Election election(PostgresStore store, String group, String id, boolean sessions) {
        return Baton.election(store).group(group).config(ElectionConfig.fast()).node(NodeInfo.of(id, id))
                .sessions(sessions).build();
    }

    @Test
    void electionsAndStoresLeaveNoThreadsOrConnectionsBehind() {
        // JVM-wide singletons (pgjdbc's and the JDK's cleaner threads) start with the first connection; not leaks.
        store("warm-up").close();
        Set<String> before = liveThreads();
        for (int round = 0; round < 3; round++) {
            PostgresStore a = store("leak-a");
            PostgresStore b = store("leak-b");
            Election leader = election(a, "leak", "a" + round);
            Election follower = election(b, "leak", "b" + round);
            leader.start();
            await().atMost(Duration.ofSeconds(10)).until(leader::isLeader);
            follower.start();
            assertThat(backends("leak-")).as("pool and LISTEN connections in use").isPositive();
            // Stop in different orders and moments: mid-run, before the follower ever settled.
            if (round % 2 == 0) {
                leader.close();
                follower.close();
            } else {
                follower.close();
                leader.close();
            }
            a.close();
            b.close();
        }

        assertThat(storeThreads()).as("store threads right after close").isEmpty();
        await().atMost(SETTLE).untilAsserted(() ->
                assertThat(liveThreads()).as("threads after closing").isSubsetOf(before));
        await().atMost(SETTLE).untilAsserted(() ->
                assertThat(backends("leak-")).as("backends of the closed stores:%s", describeBackends("leak-"))
                        .isZero());
    }

    @Test
    void storesClosedWhileTheDatabaseIsDownOrHungLeaveNothingBehind() {
        PostgresStore down = store("down-");
        Election downElection = election(down, "leak-down", "d", false);
        downElection.start();
        await().atMost(Duration.ofSeconds(10)).until(downElection::isLeader);

        postgres.stop();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> downElection.problem().isPresent());
            downElection.close();
            down.close();
            assertThat(storeThreads()).as("store threads right after closing while stopped").isEmpty();
        } finally {
            postgres.restart();
        }

        PostgresStore hung = store("hung-");
        Election hungElection = election(hung, "leak-hung", "h", false);
        hungElection.start();
        await().atMost(Duration.ofSeconds(10)).until(hungElection::isLeader);
        postgres.pause();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !hungElection.isLeader());
            hungElection.close();
            hung.close();
            assertThat(storeThreads()).as("store threads right after closing while paused").isEmpty();
        } finally {
            postgres.resume();
        }

        await().atMost(SETTLE).untilAsserted(() -> {
            assertThat(backends("down-")).as("backends of the store closed while stopped:%s",
                    describeBackends("down-")).isZero();
            assertThat(backends("hung-")).as("backends of the store closed while paused:%s",
                    describeBackends("hung-")).isZero();
        });
    }
}
