package dev.baton.redis;

import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.store.ClusterEvent;
import dev.baton.core.store.EventLogStore;
import dev.baton.testkit.RedisServer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cluster event log on Redis: seed 002's columns as JSON in a list, trimmed to the configured retention. */
class RedisEventLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RETENTION = EventLogStore.MIN_RETAINED + 24;

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
        store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).keyPrefix("app:")
                .eventRetention(RETENTION).build());
        group = "events-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private String events() {
        return "{app:" + group + "}:events";
    }

    @Test
    void theLogIsTrimmedToTheRetentionKeepingTheNewestEvents() {
        int appended = RETENTION + 176;
        // Sent without waiting for each reply, so Lettuce pipelines them; in batches to stay under its queue bound.
        for (int batch = 0; batch < appended; batch += 400) {
            List<CompletableFuture<Void>> appends = new ArrayList<>();
            for (int i = batch; i < Math.min(batch + 400, appended); i++) {
                appends.add(store.events().appendEvent(group, "a", "event_" + i, Map.of("n", Integer.toString(i))));
            }
            appends.forEach(StoreCalls::get);
        }

        List<ClusterEvent> events = get(store.events().recentEvents(group, appended));

        assertThat(raw.sync().llen(events())).isEqualTo(RETENTION);
        List<Long> newestIds = LongStream.iterate(appended, id -> id - 1).limit(RETENTION).boxed().toList();
        assertThat(events).extracting(ClusterEvent::id).containsExactlyElementsOf(newestIds);
        assertThat(events.get(0).type()).isEqualTo("event_" + (appended - 1));
        assertThat(events.get(RETENTION - 1).data()).isEqualTo(Map.of("n", Integer.toString(appended - RETENTION)));
        assertThat(raw.sync().get(events() + ":seq")).isEqualTo(Integer.toString(appended));
    }

    @Test
    void eachEventIsStoredAsJsonWithTheSeedsColumnNamesAndStoreTime() throws Exception {
        get(store.events().appendEvent(group, "node-1", "leader_elected", Map.of("term", "7", "reason",
                "a \"quoted\" \u00e9")));

        JsonNode entry = JSON.readTree(raw.sync().lindex(events(), 0));

        assertThat(entry.get("id").asText()).isEqualTo("1");
        assertThat(entry.get("node_id").asText()).isEqualTo("node-1");
        assertThat(entry.get("event_type").asText()).isEqualTo("leader_elected");
        assertThat(entry.get("event_data").get("term").asText()).isEqualTo("7");
        assertThat(entry.get("event_data").get("reason").asText()).isEqualTo("a \"quoted\" \u00e9");
        Instant at = Instant.parse(entry.get("timestamp").asText());
        assertThat(at).isCloseTo(redisTime(), within(5, ChronoUnit.SECONDS));
        assertThat(entry.get("timestamp_ms").asText()).isEqualTo(Long.toString(at.toEpochMilli()));
        assertThat(get(store.events().recentEvents(group, 1)).get(0).at()).isEqualTo(at);
    }

    @Test
    void entriesNotWrittenByBatonAreSkipped() {
        get(store.events().appendEvent(group, "a", "election_started", Map.of()));
        raw.sync().lpush(events(), "{not json", "[1,2]", "{\"id\":3}");
        get(store.events().appendEvent(group, "a", "leader_elected", Map.of()));

        assertThat(get(store.events().recentEvents(group, 10))).extracting(ClusterEvent::type)
                .containsExactly("leader_elected", "election_started");
    }

    @Test
    void aLimitOfZeroReadsNothing() {
        get(store.events().appendEvent(group, "a", "election_started", Map.of()));

        assertThat(get(store.events().recentEvents(group, 0))).isEmpty();
        assertThat(get(store.events().recentEvents(group, -1))).isEmpty();
    }

    private static Instant redisTime() {
        List<String> time = raw.sync().time();
        return Instant.ofEpochSecond(Long.parseLong(time.get(0)), Long.parseLong(time.get(1)) * 1000);
    }
}
