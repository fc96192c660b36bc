package dev.baton.redis;

import static dev.baton.redis.StoreCalls.LONG;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.SessionStore;
import dev.baton.redis.internal.GroupKeys;
import dev.baton.redis.internal.SessionKeys;
import dev.baton.testkit.RedisClusterTopology;
import dev.baton.testkit.StoreConformanceSuite;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The Redis store on a Redis Cluster (three masters with a replica each, private) passes the same contract as every
 * other backend: every script runs on the master of its group's slot, notices and bus messages go over sharded
 * pub/sub. Sessions keep a copy of their key in each slot they use ({@link SessionCopies}).
 */
class RedisClusterConformanceTest extends StoreConformanceSuite {

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected CoordinationStore newStore() {
        return RedisStore.connect(RedisStoreOptions.builder().uri(clusterUri(cluster)).keyPrefix("conformance:")
                .build());
    }

    /**
     * Sessions on a cluster: a session keeps one copy of its key per slot it uses, whatever the number of groups
     * there, and keeping it alive extends the key and every copy with one command each; a copy that is gone ends the
     * session.
     */
    @Nested
    class SessionCopies {

        private static final String PREFIX = "conformance:";
        private static final SessionKeys NAMES = new SessionKeys(PREFIX, true);
        /** Long enough for a loaded machine; keeping alive for twice as long shows on every key. */
        private static final Duration FIRST_TTL = Duration.ofSeconds(60);

        private CoordinationStore store;
        private SessionStore sessions;
        private List<String> groups;

        @BeforeEach
        void connect() {
            store = newStore();
            sessions = store.sessions().orElseThrow();
            String base = "copies-" + UUID.randomUUID() + "-";
            groups = new ArrayList<>(IntStream.range(0, 4).mapToObj(i -> base + i).toList());
            groups.add(sameSlotAs(groups.get(0), base)); // two groups in one slot share one copy
        }

        @AfterEach
        void close() {
            store.close();
        }

        @Test
        void aSessionKeepsOneCopyPerSlotAndOneKeepAliveExtendsItAndEveryCopy() {
            String session = get(sessions.open(NodeInfo.of("a", "api"), FIRST_TTL));
            for (String g : groups) {
                assertThat(get(sessions.acquire(g, session, NodeInfo.of("a", "api"))))
                        .isInstanceOf(AcquireResult.Granted.class);
            }
            Set<String> copies = copies(session);
            assertThat(copies).hasSize((int) groups.stream().map(g -> SlotHash.getSlot(PREFIX + g)).distinct().count())
                    .hasSizeLessThan(groups.size());
            for (String copy : copies) {
                assertThat(pttl(copy)).as(copy).isPositive().isLessThanOrEqualTo(FIRST_TTL.toMillis());
            }
            long before = scriptCalls();

            assertThat(get(sessions.keepAlive(session, FIRST_TTL.multipliedBy(2)))).isTrue();

            assertThat(scriptCalls() - before).as("one script call per copy and one for the session's key")
                    .isEqualTo(copies.size() + 1);
            assertThat(pttl(NAMES.session(session))).isGreaterThan(FIRST_TTL.toMillis());
            for (String copy : copies) {
                assertThat(pttl(copy)).as(copy).isGreaterThan(FIRST_TTL.toMillis());
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

        /** EVALSHA calls over every master. */
        private static long scriptCalls() {
            return IntStream.range(0, 6).filter(cluster::isMaster).mapToLong(node -> RedisStoreLayoutTest.evalshaCalls(
                    (String) cluster.command(node, "INFO", "commandstats"))).sum();
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

    /** {@code redis-cluster://} with every node of {@code cluster} as a seed. */
    static String clusterUri(RedisClusterTopology cluster) {
        return "redis-cluster://" + cluster.seedAddresses().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }
}
