package dev.baton.samples.leaderjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Election;
import dev.baton.core.Leadership;
import dev.baton.spring.actuate.BatonEndpoint;
import dev.baton.testkit.PostgresServer;
import dev.baton.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Two copies of the sample on a private Redis (the election) and a private PostgreSQL (the job's table): one runs the
 * job, a revoked leader's late write is refused, and when the leader stops the other takes over. The first copy is
 * this test's {@code @SpringBootTest} context, the second one is started beside it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class LeaderJobTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final RedisServer REDIS = RedisServer.start();
    private static final PostgresServer POSTGRES = PostgresServer.start();

    @Autowired
    private ConfigurableApplicationContext first;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        settings().forEach(registry::add);
        registry.add("baton.node.id", () -> "copy-1");
    }

    @AfterAll
    static void stopServers() {
        REDIS.close();
        POSTGRES.close();
    }

    @Test
    void oneCopyRunsTheJobARevokedLeadersLateWriteIsRefusedAndTheOtherTakesOver() {
        try (ConfigurableApplicationContext second = startSecondCopy()) {
            Election one = first.getBean(Election.class);
            Election two = second.getBean(Election.class);
            await().atMost(PATIENCE).until(() -> one.isLeader() || two.isLeader());
            ConfigurableApplicationContext leaderContext = one.isLeader() ? first : second;
            ConfigurableApplicationContext followerContext = one.isLeader() ? second : first;
            Election leader = leaderContext.getBean(Election.class);
            JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);

            // Exactly one copy runs the job: every row is the leader's, the follower's job never ran.
            await().atMost(PATIENCE).until(() -> rows(jdbc).size() >= 3);
            assertThat(rows(jdbc)).extracting(row -> row.get("node")).containsOnly(leader.nodeId());
            assertThat(followerContext.getBean(ReportJob.class).runs()).isZero();

            // The leader is told to release (as POST /actuator/baton does); the other copy leads and writes.
            Leadership revoked = leader.leadership().orElseThrow();
            assertThat(leaderContext.getBean(BatonEndpoint.class).release()).containsEntry("released", true);
            Election successor = followerContext.getBean(Election.class);
            await().atMost(PATIENCE).until(() -> rows(jdbc).stream()
                    .anyMatch(row -> successor.nodeId().equals(row.get("node"))));

            // A write the old leader had in flight, under its old term, arrives now: refused, nothing written.
            long before = maxId(jdbc);
            assertThat(leaderContext.getBean(ReportJob.class).write(revoked)).isFalse();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM job_runs WHERE term = ? AND id > ?", Long.class,
                    revoked.term(), before)).isZero();

            // One writer per term, terms only rising.
            Map<Object, List<Object>> nodesByTerm = rows(jdbc).stream().collect(Collectors.groupingBy(
                    row -> row.get("term"), Collectors.mapping(row -> row.get("node"), Collectors.toList())));
            nodesByTerm.values().forEach(nodes -> assertThat(nodes).containsOnly(nodes.get(0)));

            // The current leader stops; the first one takes over again.
            followerContext.close();
            await().atMost(PATIENCE).until(leader::isLeader);
            long afterTakeOver = leader.leadership().orElseThrow().term();
            await().atMost(PATIENCE).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM job_runs WHERE term = ?", Long.class, afterTakeOver) > 0);
        } finally {
            // Released while Redis still runs: the servers stop before Spring closes this test's context.
            first.getBean(Election.class).close();
        }
    }

    private static long maxId(JdbcTemplate jdbc) {
        Long max = jdbc.queryForObject("SELECT max(id) FROM job_runs", Long.class);
        return max == null ? 0 : max;
    }

    private static List<Map<String, Object>> rows(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT node, term FROM job_runs ORDER BY id");
    }

    private static ConfigurableApplicationContext startSecondCopy() {
        // Command-line arguments, which win over application.properties (builder properties would not).
        String[] arguments = java.util.stream.Stream.concat(settings().entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue().get()), java.util.stream.Stream.of(
                        "--baton.node.id=copy-2")).toArray(String[]::new);
        return new SpringApplicationBuilder(LeaderJobApplication.class).web(WebApplicationType.NONE).run(arguments);
    }

    private static Map<String, java.util.function.Supplier<Object>> settings() {
        return Map.of(
                "baton.backend", REDIS::uri,
                "spring.datasource.url", POSTGRES::jdbcUrl,
                "spring.datasource.username", POSTGRES::user,
                "spring.datasource.password", POSTGRES::password,
                "leader-job.interval", () -> "200ms");
    }
}
