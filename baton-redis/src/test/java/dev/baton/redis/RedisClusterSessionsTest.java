package dev.baton.redis;

import static dev.baton.redis.StoreCalls.LONG;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.SessionStore;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.redis.internal.SessionKeys;
import dev.baton.testkit.RedisClusterTopology;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions on a Redis Cluster (three masters with a replica each, private): a session keeps one copy of its key per
 * slot it uses, whatever the number of groups there, and keeping it alive extends the key and every copy with one
 * command each; a copy that is gone ends the session.
 */
class RedisClusterSessionsTest {

    private static final String PREFIX = "cs:";
    private static final SessionKeys NAMES = new SessionKeys(PREFIX, true);

    private static RedisClusterTopology cluster;

    private RedisStore store;
    private SessionStore sessions;
    private List<String> groups;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void connect() {
        store = RedisStore.connect(RedisStoreOptions.builder()
                .uri(RedisClusterConformanceTest.clusterUri(cluster)).keyPrefix(PREFIX).build());
        sessions = store.sessions().orElseThrow();
        String base = "g-" + UUID.randomUUID() + "-";
        groups = new ArrayList<>(IntStream.range(0, 4).mapToObj(i -> base + i).toList());
        groups.add(sameSlotAs(groups.get(0), base)); // two groups in one slot share one copy
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aSessionKeepsOneCopyPerSlotAndOneKeepAliveExtendsItAndEveryCopy() {
        String session = get(sessions.open(NodeInfo.of("a", "api"), Duration.ofSeconds(5)));
        for (String g : groups) {
            assertThat(get(sessions.acquire(g, session, NodeInfo.of("a", "api"))))
                    .isInstanceOf(AcquireResult.Granted.class);
        }
        Set<String> copies = copies(session);
        assertThat(copies).hasSize((int) groups.stream().map(g -> SlotHash.getSlot(PREFIX + g)).distinct().count())
                .hasSizeLessThan(groups.size());
        for (String copy : copies) {
            assertThat(pttl(copy)).as(copy).isPositive().isLessThanOrEqualTo(5_000);
        }
        long before = scriptCalls();

        assertThat(get(sessions.keepAlive(session, LONG))).isTrue();

        assertThat(scriptCalls() - before).as("one script call per copy and one for the session's key")
                .isEqualTo(copies.size() + 1);
        assertThat(pttl(NAMES.session(session))).isGreaterThan(20_000);
        for (String copy : copies) {
            assertThat(pttl(copy)).as(copy).isGreaterThan(20_000);
        }
    }

    @Test
    void aCopyThatIsGoneEndsTheSessionAtTheNextKeepAlive() {
        String session = get(sessions.open(NodeInfo.of("a", "api"), LONG));
        for (String g : groups) {
            get(sessions.acquire(g, session, NodeInfo.of("a", "api")));
        }
        String lost = NAMES.sessionIn(GroupKeys.of(PREFIX, groups.get(1)), session);
        cluster.command(cluster.masterOf(lost), "DEL", lost);
        assertThat(get(store.leases().read(groups.get(1)))).as("the lease in the lost copy's slot").isEmpty();
        assertThat(get(store.leases().read(groups.get(2)))).isPresent();

        assertThat(get(sessions.keepAlive(session, LONG))).isFalse();

        assertThat(get(sessions.remaining(Set.of(session)))).isEmpty();
        for (String g : groups) {
            assertThat(get(store.leases().read(g))).as(g).isEmpty();
        }
        assertThat(copies(session)).isEmpty();
    }

    /** The copies of the session's key that exist in the slots of the test's groups. */
    private Set<String> copies(String session) {
        Set<String> existing = new LinkedHashSet<>();
        for (String g : groups) {
            String copy = NAMES.sessionIn(GroupKeys.of(PREFIX, g), session);
            assertThat(SlotHash.getSlot(copy)).isEqualTo(SlotHash.getSlot(GroupKeys.of(PREFIX, g).master()));
            if (pttl(copy) > 0) {
                existing.add(copy);
            }
        }
        return existing;
    }

    private static long pttl(String key) {
        return (Long) cluster.command(cluster.masterOf(key), "PTTL", key);
    }

    /** EVALSHA calls over every master, from {@code INFO commandstats}. */
    private static long scriptCalls() {
        long calls = 0;
        for (int node = 0; node < 6; node++) {
            if (!cluster.isMaster(node)) {
                continue;
            }
            String info = (String) cluster.command(node, "INFO", "commandstats");
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:")) {
                    String count = line.substring(line.indexOf("calls=") + 6);
                    calls += Long.parseLong(count.substring(0, count.indexOf(',')));
                }
            }
        }
        return calls;
    }

    /** A group name other than {@code group} whose keys share its slot. */
    private static String sameSlotAs(String group, String base) {
        int slot = SlotHash.getSlot(PREFIX + group);
        for (int n = 0; ; n++) {
            String candidate = base + "twin-" + n;
            if (SlotHash.getSlot(PREFIX + candidate) == slot) {
                return candidate;
            }
        }
    }
}
