package dev.baton.redis;

import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.store.Subscription;
import dev.baton.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Many subscriptions taken or dropped at once share a few SUBSCRIBE and UNSUBSCRIBE commands, and each channel's
 * messages still reach only that channel's handlers, until they are closed.
 */
class RedisPubSubBatchingTest {

    private static final int CHANNELS = 2_500;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private RedisServer redis;
    private RedisStore store;
    private RawRedis raw;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        store = RedisStore.connect(RedisStoreOptions.builder().uri(redis.uri()).build());
        raw = RawRedis.open(redis.uri());
    }

    @AfterEach
    void stop() {
        raw.close();
        store.close();
        redis.close();
    }

    @Test
    void manyChannelsSubscribedAtOnceEachGetOnlyTheirOwnMessages() {
        Map<Integer, List<String>> received = new ConcurrentHashMap<>();
        List<Subscription> subscriptions = subscribeAll(received);

        CompletableFuture.allOf(subscriptions.stream().map(Subscription::ready).toArray(CompletableFuture[]::new))
                .orTimeout(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
        for (int i = 0; i < CHANNELS; i++) {
            assertThat(get(store.bus().publish("batch-" + i, ("to " + i).getBytes(StandardCharsets.UTF_8))))
                    .as("receivers of channel %d", i).isEqualTo(1);
        }

        await().atMost(WAIT).untilAsserted(() -> assertThat(received.values().stream().mapToInt(List::size).sum())
                .isEqualTo(CHANNELS));
        for (int i = 0; i < CHANNELS; i++) {
            assertThat(received.get(i)).as("channel %d", i).containsExactly("to " + i);
        }
        assertThat(commandCalls("subscribe")).as("SUBSCRIBE commands for %d channels", CHANNELS)
                .isLessThan(CHANNELS / 10);
    }

    @Test
    void closedSubscriptionsStopDeliveringAndAreDroppedTogether() {
        Map<Integer, List<String>> received = new ConcurrentHashMap<>();
        List<Subscription> subscriptions = subscribeAll(received);
        CompletableFuture.allOf(subscriptions.stream().map(Subscription::ready).toArray(CompletableFuture[]::new))
                .orTimeout(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();

        subscriptions.forEach(Subscription::close);

        await().atMost(WAIT).untilAsserted(() -> assertThat(raw.sync().pubsubChannels("*batch-*")).isEmpty());
        assertThat(get(store.bus().publish("batch-0", "late".getBytes(StandardCharsets.UTF_8)))).isZero();
        assertThat(received.values()).allSatisfy(messages -> assertThat(messages).isEmpty());
        assertThat(commandCalls("unsubscribe")).as("UNSUBSCRIBE commands for %d channels", CHANNELS)
                .isLessThan(CHANNELS / 10);
    }

    @Test
    void aChannelDroppedAndTakenAgainAtOnceStillDelivers() {
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        Subscription dropped = store.bus().subscribe("again", message -> first.add(text(message)));
        get(dropped.ready());

        dropped.close();
        Subscription taken = store.bus().subscribe("again", message -> second.add(text(message)));
        get(taken.ready());

        assertThat(get(store.bus().publish("again", "hello".getBytes(StandardCharsets.UTF_8)))).isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(second).containsExactly("hello"));
        assertThat(first).isEmpty();
        taken.close();
    }

    private List<Subscription> subscribeAll(Map<Integer, List<String>> received) {
        List<Subscription> subscriptions = new ArrayList<>();
        for (int i = 0; i < CHANNELS; i++) {
            int channel = i;
            received.put(channel, new CopyOnWriteArrayList<>());
            subscriptions.add(store.bus().subscribe("batch-" + i, message -> received.get(channel).add(text(message))));
        }
        return subscriptions;
    }

    private long commandCalls(String command) {
        String stats = raw.sync().info("commandstats");
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }

    private static String text(byte[] message) {
        return new String(message, StandardCharsets.UTF_8);
    }
}
