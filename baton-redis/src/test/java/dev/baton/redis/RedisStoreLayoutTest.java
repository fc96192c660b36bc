package dev.baton.redis;

import static dev.baton.redis.StoreCalls.LONG;
import static dev.baton.redis.StoreCalls.acquire;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.Capabilities;
import dev.baton.core.NodeInfo;
import dev.baton.core.Role;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.SessionStore;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.testkit.RedisServer;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What the store writes to Redis: seed 000's key names and JSON, hash-tagged, readable by the seed. */
class RedisStoreLayoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ISO_MILLIS = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z";

    private static RedisServer redis;
    private static RawRedis raw;

    private RedisStore store;
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
        group = "layout-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private String tag() {
        return "{app:" + group + "}";
    }

    @Test
    void everyKeyOfAGroupIsHashTaggedIntoOneSlot() {
        long term = acquire(store, group, "a");
        get(store.registry().register(group, NodeInfo.of("a", "api"), LONG));
        get(store.registers().fencedWrite(group, "config", "a", term, new byte[] {1}));
        get(store.maps().fencedPut(group, "items", "k", "a", term, new byte[] {2}));
        get(store.events().appendEvent(group, "a", "leader_elected", Map.of("term", Long.toString(term))));
        get(store.leaderRecords().writeLeader(new LeaderRecord(group, 1, "a", 1, "127.0.0.1:7001")));

        List<String> keys = raw.sync().keys("*" + group + "*");

        assertThat(keys).containsExactlyInAnyOrder(tag() + ":master", tag() + ":master_term", tag() + ":heartbeat",
                tag() + ":master_process", tag() + ":term", tag() + ":processes", tag() + ":processes:expiry",
                tag() + ":fenced:config", tag() + ":map:items", tag() + ":events", tag() + ":events:seq",
                tag() + ":leader");
        assertThat(keys).extracting(SlotHash::getSlot).containsOnly(SlotHash.getSlot(tag()));
    }

    @Test
    void aFencedMapIsOneHashWithAFieldPerKeyHoldingTermWriterAndValue() {
        long term = acquire(store, group, "a");
        String key = "display-1;camera 7 \"q\" %3B \u00e9";

        get(store.maps().fencedPut(group, "items", key, "a", term, "on".getBytes(StandardCharsets.UTF_8)));

        assertThat(raw.sync().hgetall(tag() + ":map:items")).containsExactly(Map.entry(key, term + ":1:aon"));
        get(store.maps().fencedRemove(group, "items", key, "a", term));
        assertThat(raw.sync().exists(tag() + ":map:items")).as("an emptied hash is gone").isZero();
    }

    @Test
    void aMapEntryThatCannotBeDecodedFailsTheReadNamingIt() {
        raw.sync().hset(tag() + ":map:items", "broken", "no header");

        assertThat(StoreCalls.failure(store.maps().mapEntries(group, "items")))
                .isInstanceOf(StoreException.class).hasMessageContaining("broken").hasMessageContaining("items");
    }

    @Test
    void theLeaderRecordIsOneHashWithoutTtlHoldingEveryFieldAsText() {
        get(store.leaderRecords().writeLeader(new LeaderRecord(group, 9_007_199_254_740_993L, "node-a", 3,
                "10.0.0.7:7946")));

        assertThat(raw.sync().hgetall(tag() + ":leader")).containsOnly(Map.entry("term", "9007199254740993"),
                Map.entry("leader_id", "node-a"), Map.entry("process_id", "3"), Map.entry("address", "10.0.0.7:7946"));
        assertThat(raw.sync().pttl(tag() + ":leader")).isEqualTo(-1);
        LeaderRecordWrite oneBelow = get(store.leaderRecords().writeLeader(
                new LeaderRecord(group, 9_007_199_254_740_992L, "node-b", 4, "10.0.0.8:7946")));
        assertThat(oneBelow.accepted()).as("a term one below, equal as a double").isFalse();
    }

    @Test
    void anIncompleteLeaderRecordFailsReadsAndWritesNamingIt() {
        raw.sync().hset(tag() + ":leader", "term", "4");

        assertThat(StoreCalls.failure(store.leaderRecords().readLeader(group)))
                .isInstanceOf(StoreException.class).hasMessageContaining("leader record").hasMessageContaining("incomplete");
        assertThat(StoreCalls.failure(store.leaderRecords().writeLeader(new LeaderRecord(group, 5, "a", 1,
                "127.0.0.1:1"))))
                .isInstanceOf(StoreException.class).hasMessageContaining("incomplete");
    }

    @Test
    void leaseKeysHoldTheSeedsValuesWithTheLeaseTtl() throws Exception {
        long term = acquire(store, group, "a");

        assertThat(raw.sync().get(tag() + ":master")).isEqualTo("a");
        assertThat(raw.sync().get(tag() + ":master_term")).isEqualTo(Long.toString(term));
        long heartbeatMillis = Long.parseLong(raw.sync().get(tag() + ":heartbeat"));
        assertThat(Instant.ofEpochMilli(heartbeatMillis)).isCloseTo(redisTime(), within(5, ChronoUnit.SECONDS));
        for (String key : List.of(":master", ":master_term", ":heartbeat", ":master_process")) {
            assertThat(raw.sync().pttl(tag() + key)).as(key).isPositive().isLessThanOrEqualTo(LONG.toMillis());
        }
        JsonNode process = JSON.readTree(raw.sync().get(tag() + ":master_process"));
        assertThat(process.get("processId").asText()).isEqualTo("a");
        assertThat(process.get("role").asText()).isEqualTo("master");
    }

    @Test
    void registryEntriesUseTheSeedsFieldNamesAndStoreTime() throws Exception {
        NodeInfo node = NodeInfo.of("p1", "orders-api").withApiAddress("http://10.0.0.1:8080")
                .withCapabilities(new Capabilities(false, 7, 40)).withMetadata(Map.of("zone", "a"));
        get(store.registry().register(group, node, LONG));

        JsonNode entry = JSON.readTree(raw.sync().hget(tag() + ":processes", "p1"));

        assertThat(entry.get("processId").asText()).isEqualTo("p1");
        assertThat(entry.get("nodeId").asText()).isEqualTo("p1");
        assertThat(entry.get("identifier").asText()).isEqualTo("orders-api");
        assertThat(entry.get("role").asText()).isEqualTo("slave");
        assertThat(entry.get("apiAddress").asText()).isEqualTo("http://10.0.0.1:8080");
        assertThat(entry.get("channelName").asText()).isEqualTo("worker:slave:p1");
        assertThat(entry.get("capabilities").get("canProcessDetections").asBoolean()).isFalse();
        assertThat(entry.get("capabilities").get("maxSubscriptions").asInt()).isEqualTo(7);
        assertThat(entry.get("capabilities").get("preferredWorkload").asInt()).isEqualTo(40);
        assertThat(entry.get("metadata").get("zone").asText()).isEqualTo("a");
        assertThat(entry.get("registeredAt").asText()).matches(ISO_MILLIS);
        assertThat(Instant.parse(entry.get("lastSeen").asText())).isCloseTo(redisTime(), within(5, ChronoUnit.SECONDS));
        double expiry = raw.sync().zscore(tag() + ":processes:expiry", "p1");
        assertThat(expiry - redisTime().toEpochMilli()).isBetween(LONG.toMillis() - 5000.0, LONG.toMillis() + 0.0);
        assertThat(get(store.registry().member(group, "p1"))).contains(node.withTimes(
                Instant.parse(entry.get("registeredAt").asText()), Instant.parse(entry.get("lastSeen").asText())));
    }

    @Test
    void entriesWrittenByTheSeedAreListed() {
        raw.sync().hset(tag() + ":processes", "seed-1", "{\"processId\":\"seed-1\",\"nodeId\":\"seed-1\","
                + "\"role\":\"slave\",\"lastSeen\":\"2025-08-12T09:06:37.123Z\",\"unknownField\":[1,2],"
                + "\"capabilities\":{\"canProcessDetections\":true,\"maxSubscriptions\":5,\"preferredWorkload\":50},"
                + "\"metadata\":{\"port\":8080}}");

        NodeInfo seed = get(store.registry().member(group, "seed-1")).orElseThrow();

        assertThat(seed.identifier()).isEqualTo("seed-1");
        assertThat(seed.capabilities()).isEqualTo(new Capabilities(true, 5, 50));
        assertThat(seed.metadata()).containsEntry("port", "8080");
        assertThat(seed.lastSeen()).isEqualTo(Instant.parse("2025-08-12T09:06:37.123Z"));
        assertThat(get(store.registry().members(group))).extracting(NodeInfo::id).containsExactly("seed-1");
    }

    @Test
    void anUnreadableEntryIsSkippedWithoutBreakingTheListing() {
        get(store.registry().register(group, NodeInfo.of("good", "api"), LONG));
        raw.sync().hset(tag() + ":processes", "bad", "{not json");
        raw.sync().hset(tag() + ":processes", "array", "[1,2,3]");

        assertThat(get(store.registry().members(group))).extracting(NodeInfo::id).containsExactly("good");
        assertThat(get(store.registry().member(group, "bad"))).isEmpty();
    }

    @Test
    void malformedNoticesAreDroppedAndLaterOnesStillArrive() {
        List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
        Subscription subscription = store.leases().watch(group, heard::add);
        get(subscription.ready());

        raw.sync().publish(tag() + ":notices", "acquired not-a-term x");
        raw.sync().publish(tag() + ":notices", "garbage");
        long term = acquire(store, group, "a");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(heard).containsExactly(new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "a", term)));
        subscription.close();
    }

    @Test
    void messageChannelsCarryTheKeyPrefix() {
        List<String> received = new CopyOnWriteArrayList<>();
        Subscription subscription = store.bus().subscribe("worker:slave:p1",
                message -> received.add(new String(message, StandardCharsets.UTF_8)));
        get(subscription.ready());

        raw.sync().publish("app:worker:slave:p1", "routed");

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(received).containsExactly("routed"));
        assertThat(get(store.bus().publish("worker:slave:p1", "again".getBytes(StandardCharsets.UTF_8)))).isEqualTo(1);
        subscription.close();
    }

    @Test
    void keyPrefixesIsolateApplicationsOnOneServer() {
        try (RedisStore other = RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).keyPrefix("other:")
                .build())) {
            acquire(store, group, "a");

            AcquireResult elsewhere = get(other.leases().acquire(group, NodeInfo.of("b", "test"), LONG));

            assertThat(elsewhere).isInstanceOf(AcquireResult.Granted.class);
            assertThat(raw.sync().get("{other:" + group + "}:master")).isEqualTo("b");
        }
    }

    @Test
    void rolesInStoredEntriesFollowTheLeaseAtEachHeartbeat() throws Exception {
        get(store.registry().register(group, NodeInfo.of("a", "api"), LONG));
        acquire(store, group, "a");

        get(store.registry().heartbeat(group, "a", LONG));

        JsonNode entry = JSON.readTree(raw.sync().hget(tag() + ":processes", "a"));
        assertThat(entry.get("role").asText()).isEqualTo("master");
        assertThat(get(store.registry().leaderInfo(group))).hasValueSatisfying(info -> {
            assertThat(info.id()).isEqualTo("a");
            assertThat(info.role()).isEqualTo(Role.LEADER);
            assertThat(info.registeredAt()).isNotNull();
        });
    }

    @Test
    void expiredEntriesVanishFromListingsAtOnceAndSweepingDeletesThem() {
        get(store.registry().register(group, NodeInfo.of("brief", "api"), Duration.ofMillis(200)));
        get(store.registry().register(group, NodeInfo.of("steady", "api"), LONG));

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(get(store.registry().members(group))).extracting(NodeInfo::id).containsExactly("steady"));
        assertThat(raw.sync().hexists(tag() + ":processes", "brief")).as("still stored until swept").isTrue();

        assertThat(get(store.registry().sweepExpired(group))).containsExactly("brief");

        assertThat(raw.sync().hkeys(tag() + ":processes")).containsExactly("steady");
        assertThat(raw.sync().zrange(tag() + ":processes:expiry", 0, -1)).containsExactly("steady");
    }

    @Test
    void theFirstTermOfAGroupIsTheServerClockInMicroseconds() {
        long micros = redisTime().getEpochSecond() * 1_000_000L;

        long term = acquire(store, group, "a");

        assertThat(term).isGreaterThanOrEqualTo(micros).isLessThan(micros + 60_000_000L);
        assertThat(raw.sync().get(tag() + ":term")).isEqualTo(Long.toString(term));
    }

    @Test
    void tenThousandProcessesAreListed() {
        int count = 10_000;
        for (int batch = 0; batch < count; batch += 1000) {
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = batch; i < batch + 1000; i++) {
                writes.add(store.registry().register(group, NodeInfo.of(String.format("p%05d", i), "bulk"), LONG));
            }
            writes.forEach(StoreCalls::get);
        }

        List<NodeInfo> members = get(store.registry().members(group));

        assertThat(members).hasSize(count);
        assertThat(members.get(0).id()).isEqualTo("p00000");
        assertThat(members.get(count - 1).id()).isEqualTo("p09999");
    }

    /**
     * Sessions: one key per session, group leases bound to it without a TTL of their own, one command to keep them
     * all alive, and the lease rules across both kinds of lease when the session's key is gone.
     */
    @Nested
    class Sessions {

        private SessionStore sessions;

        @BeforeEach
        void sessions() {
            sessions = store.sessions().orElseThrow();
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
            assertThat(raw.sync().get(tag() + ":master")).isEqualTo("a");
            assertThat(raw.sync().get(tag() + ":master_term")).isEqualTo(Long.toString(term));
            assertThat(raw.sync().get(tag() + ":master_session")).isEqualTo(session);
            assertThat(JSON.readTree(raw.sync().get(tag() + ":master_process")).get("role").asText())
                    .isEqualTo("master");
            List<String> leaseKeys = List.of(":master", ":master_term", ":heartbeat", ":master_process",
                    ":master_session");
            for (String suffix : leaseKeys) {
                assertThat(raw.sync().pttl(tag() + suffix)).as(suffix).isEqualTo(-1);
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
            assertThat(raw.sync().get(tag() + ":master")).as("the bound lease's keys outlive it").isEqualTo("a");

            AcquireResult result = get(store.leases().acquire(group, NodeInfo.of("b", "api"), LONG));

            assertThat(result).isInstanceOf(AcquireResult.Granted.class);
            assertThat(((AcquireResult.Granted) result).term()).isGreaterThan(bound);
            assertThat(raw.sync().exists(tag() + ":master_session")).isZero();
            assertThat(raw.sync().pttl(tag() + ":master")).isPositive();
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
            assertThat(raw.sync().hget(tag() + ":processes", "a")).contains("\"role\":\"master\"");

            get(sessions.close(session));

            assertThat(get(store.registry().member(group, "a")).orElseThrow().role()).isEqualTo(Role.FOLLOWER);
            assertThat(get(store.registry().members(group))).extracting(NodeInfo::role).containsExactly(Role.FOLLOWER);
            assertThat(get(store.registry().leaderInfo(group))).isEmpty();
            assertThat(get(store.registry().heartbeat(group, "a", LONG))).isTrue();
            assertThat(raw.sync().hget(tag() + ":processes", "a")).contains("\"role\":\"slave\"");
        }

        @Test
        void membersOfEndedSessionsArePrunedFromTheGroupsHash() {
            String a = get(sessions.open(NodeInfo.of("a", "api"), LONG));
            String b = get(sessions.open(NodeInfo.of("b", "api"), LONG));
            get(sessions.join(group, a));
            get(sessions.join(group, b));
            assertThat(raw.sync().hkeys(tag() + ":session_members")).containsExactlyInAnyOrder(a, b);

            get(sessions.close(b));

            assertThat(get(sessions.members(group))).containsOnlyKeys(a);
            assertThat(raw.sync().hkeys(tag() + ":session_members")).containsExactly(a);
        }

        private static long scriptCalls() {
            return evalshaCalls(raw.sync().info("commandstats"));
        }
    }

    /**
     * The {@code EVALSHA} calls an {@code INFO commandstats} reply counts (it also counts the commands a script runs,
     * so those cannot be told from a client's).
     */
    static long evalshaCalls(String commandStats) {
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String count = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(count.substring(0, count.indexOf(',')));
            }
        }
        return 0;
    }

    private static Instant redisTime() {
        List<String> time = raw.sync().time();
        return Instant.ofEpochSecond(Long.parseLong(time.get(0)), Long.parseLong(time.get(1)) * 1000);
    }
}
