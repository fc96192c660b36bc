package dev.baton.redis;

import static dev.baton.redis.StoreCalls.failure;
import static dev.baton.redis.StoreCalls.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.store.EventLogStore;
import dev.baton.core.store.StoreException;
import dev.baton.testkit.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Connecting, describing and closing a store; each failure with a message that says what went wrong. */
class RedisStoreConnectTest {

    @Test
    void anUnreachableRedisFailsWithAClearMessage() throws IOException {
        int port = unusedPort();

        assertThatThrownBy(() -> RedisStore.connect("redis://127.0.0.1:" + port))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("cannot reach Redis at redis://127.0.0.1:" + port + "/0: ")
                .hasMessageContaining("refused");
    }

    @Test
    void thePasswordNeverAppearsInMessagesOrDescriptions() throws IOException {
        int port = unusedPort();

        assertThatThrownBy(() -> RedisStore.connect("redis://:s3cret@127.0.0.1:" + port + "/3"))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("cannot reach Redis at redis://127.0.0.1:" + port + "/3: ")
                .hasMessageNotContaining("s3cret");

        try (RedisServer redis = RedisServer.start()) {
            try (RawRedis raw = RawRedis.open(redis.uri())) {
                raw.sync().configSet("requirepass", "s3cret");
            }
            String uri = "redis://:s3cret@127.0.0.1:" + redis.port() + "/2";
            try (RedisStore store = RedisStore.connect(uri)) {
                assertThat(store.describe()).isEqualTo("redis://127.0.0.1:" + redis.port() + "/2");
                assertThat(store.toString()).doesNotContain("s3cret");
                assertThat(get(store.leases().read("g"))).isEmpty();
            }
            assertThatThrownBy(() -> RedisStore.connect("redis://:not-the-pw@127.0.0.1:" + redis.port()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageStartingWith("cannot reach Redis at redis://127.0.0.1:" + redis.port() + "/0: ")
                    .hasMessageNotContaining("not-the-pw");
        }
    }

    @Test
    void optionsNameTheInvalidField() {
        assertThatThrownBy(() -> RedisStoreOptions.builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("http://:pw@host").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri")
                .hasMessageNotContaining("pw");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis://h").keyPrefix("a{b").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis://h").commandTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis://h").connectTimeout(Duration.ofMillis(-1))
                .build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis://h")
                .eventRetention(EventLogStore.MIN_RETAINED - 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("eventRetention");

        RedisStoreOptions options = RedisStoreOptions.builder().uri("redis://:pw@h:7000/4").keyPrefix("p:").build();
        assertThat(options.toBuilder().build().keyPrefix()).isEqualTo("p:");
        assertThat(options.eventRetention()).isEqualTo(10_000);
        assertThat(options.toBuilder().eventRetention(EventLogStore.MIN_RETAINED).build().eventRetention())
                .isEqualTo(EventLogStore.MIN_RETAINED);
        assertThat(options.toString()).contains("redis://h:7000/4").doesNotContain("pw");
    }

    @Test
    void sentinelUrisNameTheSentinelsAndTheMasterButNeverThePassword() throws IOException {
        RedisStoreOptions hash = RedisStoreOptions.builder()
                .uri("redis-sentinel://s3cret@127.0.0.1:26379,127.0.0.1:26380/2#orders").build();
        assertThat(hash.usesSentinel()).isTrue();
        assertThat(hash.toString()).contains("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/2#orders")
                .doesNotContain("s3cret");
        RedisStoreOptions query = RedisStoreOptions.builder()
                .uri("redis-sentinel://127.0.0.1:26379?sentinelMasterId=orders").build();
        assertThat(query.toString()).contains("redis-sentinel://127.0.0.1:26379/0#orders");
        assertThat(RedisStoreOptions.builder().uri("redis://h").build().usesSentinel()).isFalse();

        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-sentinel://s3cret@127.0.0.1:26379").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("master name")
                .hasMessageNotContaining("s3cret");

        int port = unusedPort();
        assertThatThrownBy(() -> RedisStore.connect("redis-sentinel://s3cret@127.0.0.1:" + port + "#orders"))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("cannot reach Redis at redis-sentinel://127.0.0.1:" + port + "/0#orders: ")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void clusterUrisNameTheSeedNodesButNeverThePassword() throws IOException {
        RedisStoreOptions seeds = RedisStoreOptions.builder()
                .uri("redis-cluster://s3cret@127.0.0.1:7000,127.0.0.1:7001,[::1]:7002").build();
        assertThat(seeds.usesCluster()).isTrue();
        assertThat(seeds.usesSentinel()).isFalse();
        assertThat(seeds.toString()).contains("redis-cluster://127.0.0.1:7000,127.0.0.1:7001,::1:7002")
                .doesNotContain("s3cret");
        assertThat(RedisStoreOptions.builder().uri("redis-cluster://h:7000/").build().toString())
                .contains("redis-cluster://h:7000");
        assertThat(RedisStoreOptions.builder().uri("redis://h").build().usesCluster()).isFalse();

        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-cluster://s3cret@h:7000/2").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a cluster has no database")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-cluster://s3cret@h").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed 'h' is not host:port")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-cluster://h:7000,h:x").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed 'h:x' has no numeric port");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-cluster://h:7000,").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seed '' is not host:port");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis-cluster://").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no seed node");

        int port = unusedPort();
        assertThatThrownBy(() -> RedisStore.connect("redis-cluster://s3cret@127.0.0.1:" + port))
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("cannot reach Redis at redis-cluster://127.0.0.1:" + port + ": ")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void waitReplicasIsValidatedAgainstTheCommandTimeout() {
        RedisStoreOptions.Builder base = RedisStoreOptions.builder().uri("redis://h");
        assertThat(base.build().waitReplicas()).isZero();
        assertThat(base.build().waitReplicasTimeout()).isZero();
        assertThatThrownBy(() -> base.waitReplicas(-1, Duration.ofMillis(100)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitReplicas must be at least 0");
        assertThatThrownBy(() -> base.waitReplicas(1, null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitReplicas timeout");
        assertThatThrownBy(() -> base.waitReplicas(1, Duration.ofSeconds(2)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below commandTimeout");

        RedisStoreOptions options = base.waitReplicas(2, Duration.ofMillis(250)).build();
        assertThat(options.toBuilder().build().waitReplicas()).isEqualTo(2);
        assertThat(options.toBuilder().build().waitReplicasTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(options.toString()).contains("waitReplicas=2");
    }

    @Test
    void waitReplicasCanBeGivenInTheUriOfEveryKind() {
        RedisStoreOptions sentinel = RedisStoreOptions.builder().uri("redis-sentinel://s3cret@127.0.0.1:26379,"
                + "127.0.0.1:26380?sentinelMasterId=orders&waitReplicas=1&waitReplicasTimeout=200ms").build();
        assertThat(sentinel.waitReplicas()).isEqualTo(1);
        assertThat(sentinel.waitReplicasTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(sentinel.usesSentinel()).isTrue();
        assertThat(sentinel.toString()).contains("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/0#orders")
                .contains("waitReplicas=1 within PT0.2S").doesNotContain("s3cret");

        RedisStoreOptions fragment = RedisStoreOptions.builder()
                .uri("redis-sentinel://h:26379/2?waitReplicasTimeout=1s&waitReplicas=2#orders").build();
        assertThat(fragment.waitReplicas()).isEqualTo(2);
        assertThat(fragment.waitReplicasTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fragment.toString()).contains("redis-sentinel://h:26379/2#orders");

        RedisStoreOptions single = RedisStoreOptions.builder().uri("redis://h:6379/1?waitReplicas=1"
                + "&waitReplicasTimeout=150").build();
        assertThat(single.waitReplicasTimeout()).isEqualTo(Duration.ofMillis(150));
        assertThat(single.toString()).contains("redis://h:6379/1");

        RedisStoreOptions cluster = RedisStoreOptions.builder()
                .uri("redis-cluster://h:7000,h:7001?waitReplicas=1&waitReplicasTimeout=100ms").build();
        assertThat(cluster.usesCluster()).isTrue();
        assertThat(cluster.waitReplicas()).isEqualTo(1);

        assertThat(cluster.toBuilder().build().waitReplicas()).as("the same value twice is no conflict")
                .isEqualTo(1);
        assertThat(RedisStoreOptions.builder().uri("redis://h?waitReplicas=0&waitReplicasTimeout=0").build()
                .waitReplicas()).isZero();
    }

    @Test
    void badWaitReplicasParametersAreRefusedWithOneLine() {
        assertUriRefused("redis://h?waitReplicas=1", "uri parameter waitReplicas needs waitReplicasTimeout too, as in "
                + "?waitReplicas=1&waitReplicasTimeout=200ms");
        assertUriRefused("redis://h?waitReplicasTimeout=200ms", "uri parameter waitReplicasTimeout needs "
                + "waitReplicas too");
        assertUriRefused("redis://h?waitReplicas=one&waitReplicasTimeout=200ms", "uri parameter waitReplicas must "
                + "be a number of replicas (0 or more), was 'one'");
        assertUriRefused("redis://h?waitReplicas=-1&waitReplicasTimeout=200ms", "was '-1'");
        assertUriRefused("redis://h?waitReplicas=1&waitReplicasTimeout=2m", "uri parameter waitReplicasTimeout must "
                + "be a duration such as 200ms or 1s, was '2m'");
        assertUriRefused("redis://h?waitReplicas=1&waitReplicasTimeout=", "was ''");
        assertUriRefused("redis://h?waitReplicas=1&waitReplicas=2&waitReplicasTimeout=1", "uri parameter "
                + "waitReplicas is given twice");
        assertUriRefused("redis://h?waitReplicas=1&waitReplicasTimeout=0ms", "waitReplicas timeout must be "
                + "positive, was PT0S");
        assertUriRefused("redis://h?waitReplicas=1&waitReplicasTimeout=2s", "waitReplicas timeout must be below "
                + "commandTimeout (PT2S), was PT2S");
        assertUriRefused("redis-cluster://h:7000?waitReplicas=1&waitReplicasTimeout=100ms&db=2",
                "a cluster has no database, query or master name");
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri("redis://h?waitReplicas=1&waitReplicasTimeout=100")
                .waitReplicas(2, Duration.ofMillis(100)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitReplicas is set both by the builder (2 within PT0.1S) and in the uri (1 within "
                        + "PT0.1S); give it once");
    }

    private static void assertUriRefused(String uri, String message) {
        assertThatThrownBy(() -> RedisStoreOptions.builder().uri(uri).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void closeLeavesNoLettuceThreadsAndLaterCallsFail() {
        try (RedisServer redis = RedisServer.start()) {
            Set<String> before = lettuceThreads();
            RedisStore store = RedisStore.connect(redis.uri());
            get(store.bus().subscribe("channel", message -> { }).ready());
            get(store.leases().read("g"));
            assertThat(lettuceThreads()).isNotEmpty();

            store.close();
            store.close();

            await().atMost(Duration.ofSeconds(10)).until(() -> before.containsAll(lettuceThreads()));
            assertThat(failure(store.leases().read("g"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("closed");
        }
    }

    private static Set<String> lettuceThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("lettuce-")).collect(Collectors.toSet());
    }

    /** A loopback port with nothing listening on it (for as long as no one else takes it). */
    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
