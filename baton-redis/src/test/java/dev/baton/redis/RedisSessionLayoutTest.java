package dev.baton.redis;

import static dev.baton.redis.StoreCalls.LONG;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.Lease;
import dev.baton.core.store.SessionStore;
import dev.baton.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What sessions write to one Redis server, and what they cost: one key per session, group leases bound to it without
 * a TTL of their own, one command to keep them all alive, and the lease rules across both kinds of lease when the
 * session's key is gone.
 */
class RedisSessionLayoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ISO_MILLIS = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z";

    private static RedisServer redis;
    private static RawRedis raw;

    private RedisStore store;
    private SessionStore sessions;
    private String group;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        raw = RawRedis.open(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        raw.close();
        redis.close();
    }

    @BeforeEach
    void connect() {
        store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).keyPrefix("app:").build());
        sessions = store.sessions().orElseThrow();
        group = "sessions-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private String tag(String g) {
        return "{app:" + g + "}";
    }

    private long granted(String g, String session, String nodeId) {
        AcquireResult result = get(sessions.acquire(g, session, NodeInfo.of(nodeId, "api")));
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    @Test
    void aSessionIsOneHashWithItsTtlAndABoundLeaseHasNoTtlButNamesIt() throws Exception {
        String session = get(sessions.open(NodeInfo.of("a", "api"), LONG));
        long term = granted(group, session, "a");

        String key = "app:session:" + session;
        Map<String, String> fields = raw.sync().hgetall(key);
        assertThat(fields).containsOnlyKeys("id", "node", "lastSeen").containsEntry("id", "a");
        assertThat(JSON.readTree(fields.get("node")).get("processId").asText()).isEqualTo("a");
        assertThat(fields.get("lastSeen")).matches(ISO_MILLIS);
        assertThat(raw.sync().pttl(key)).isPositive().isLessThanOrEqualTo(LONG.toMillis());
        assertThat(raw.sync().get(tag(group) + ":master")).isEqualTo("a");
        assertThat(raw.sync().get(tag(group) + ":master_term")).isEqualTo(Long.toString(term));
        assertThat(raw.sync().get(tag(group) + ":master_session")).isEqualTo(session);
        assertThat(JSON.readTree(raw.sync().get(tag(group) + ":master_process")).get("role").asText())
                .isEqualTo("master");
        for (String suffix : List.of(":master", ":master_term", ":heartbeat", ":master_process", ":master_session")) {
            assertThat(raw.sync().pttl(tag(group) + suffix)).as(suffix).isEqualTo(-1);
        }
    }

    @Test
    void keepingASessionAliveIsOneCommandHoweverManyGroupsItHolds() {
        String session = get(sessions.open(NodeInfo.of("a", "api"), LONG));
        for (int i = 0; i < 20; i++) {
            granted(group + "-" + i, session, "a");
        }
        long before = scriptCalls();

        assertThat(get(sessions.keepAlive(session, LONG))).isTrue();

        assertThat(scriptCalls() - before).as("script calls").isEqualTo(1);
    }

    @Test
    void aTtlAcquireTakesALeaseWhoseSessionKeyExpiredAndDropsTheBinding() {
        String session = get(sessions.open(NodeInfo.of("a", "api"), Duration.ofMillis(300)));
        long bound = granted(group, session, "a");
        await().atMost(Duration.ofSeconds(10)).until(() -> raw.sync().exists("app:session:" + session) == 0);
        assertThat(raw.sync().get(tag(group) + ":master")).as("the bound lease's keys outlive it").isEqualTo("a");

        AcquireResult result = get(store.leases().acquire(group, NodeInfo.of("b", "api"), LONG));

        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        assertThat(((AcquireResult.Granted) result).term()).isGreaterThan(bound);
        assertThat(raw.sync().exists(tag(group) + ":master_session")).isZero();
        assertThat(raw.sync().pttl(tag(group) + ":master")).isPositive();
        Lease lease = get(store.leases().read(group)).orElseThrow();
        assertThat(lease.owner()).isEqualTo("b");
        assertThat(lease.boundToSession()).isFalse();
    }

    @Test
    void theRegistryTakesALeaseOfAnEndedSessionForNoLease() {
        get(store.registry().register(group, NodeInfo.of("a", "api"), LONG));
        String session = get(sessions.open(NodeInfo.of("a", "api"), LONG));
        granted(group, session, "a");
        assertThat(get(store.registry().member(group, "a")).orElseThrow().role()).isEqualTo(Role.LEADER);
        assertThat(get(store.registry().leaderInfo(group))).isPresent();
        assertThat(get(store.registry().heartbeat(group, "a", LONG))).isTrue();
        assertThat(raw.sync().hget(tag(group) + ":processes", "a")).contains("\"role\":\"master\"");

        get(sessions.close(session));

        assertThat(get(store.registry().member(group, "a")).orElseThrow().role()).isEqualTo(Role.FOLLOWER);
        assertThat(get(store.registry().members(group))).extracting(NodeInfo::role).containsExactly(Role.FOLLOWER);
        assertThat(get(store.registry().leaderInfo(group))).isEmpty();
        assertThat(get(store.registry().heartbeat(group, "a", LONG))).isTrue();
        assertThat(raw.sync().hget(tag(group) + ":processes", "a")).contains("\"role\":\"slave\"");
    }

    @Test
    void membersOfEndedSessionsArePrunedFromTheGroupsHash() {
        String a = get(sessions.open(NodeInfo.of("a", "api"), LONG));
        String b = get(sessions.open(NodeInfo.of("b", "api"), LONG));
        get(sessions.join(group, a));
        get(sessions.join(group, b));
        assertThat(raw.sync().hkeys(tag(group) + ":session_members")).containsExactlyInAnyOrder(a, b);

        get(sessions.close(b));

        assertThat(get(sessions.members(group))).containsOnlyKeys(a);
        assertThat(raw.sync().hkeys(tag(group) + ":session_members")).containsExactly(a);
    }

    /**
     * {@code EVALSHA} calls from {@code INFO commandstats} (which also counts the commands a script runs, so those
     * cannot be told from a client's).
     */
    private static long scriptCalls() {
        for (String line : raw.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String count = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(count.substring(0, count.indexOf(',')));
            }
        }
        return 0;
    }
}
