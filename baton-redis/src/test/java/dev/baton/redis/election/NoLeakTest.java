package dev.baton.redis.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.Baton;
import dev.baton.core.Election;
import dev.baton.core.ElectionConfig;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Stores and elections give back every thread and connection they took, however they are stopped. */
class NoLeakTest {

    private static final String SHARED_ELECTION_THREADS = "baton-election";
    /** The listeners' shared pool: it too keeps idle threads for a minute, and grows only while listeners run. */
    private static final String SHARED_LISTENER_THREADS = "baton-listener";

    private static Set<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> !name.startsWith("ForkJoinPool") && !name.startsWith("surefire")
                        && !name.startsWith("Attach") && !name.startsWith("process reaper")
                        && !name.startsWith("awaitility"))
                .collect(Collectors.toSet());
    }

    @Test
    void electionsAndStoresLeaveNoThreadsOrConnectionsBehind() {
        try (RedisServer redis = RedisServer.start()) {
            Set<String> before = liveThreads();
            for (int round = 0; round < 3; round++) {
                RedisStore a = RedisStore.connect(redis.uri());
                RedisStore b = RedisStore.connect(redis.uri());
                Election leader = Baton.election(a).group("leak").config(ElectionConfig.fast()).build();
                Election follower = Baton.election(b).group("leak").config(ElectionConfig.fast()).build();
                leader.start();
                await().atMost(Duration.ofSeconds(10)).until(leader::isLeader);
                follower.start();
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

            // Elections and their listeners run on daemon threads shared by the JVM's elections, which stop only
            // after a minute idle: reused, not leaked, so they are few whatever the number of elections built; every
            // other thread goes.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(liveThreads().stream()
                    .filter(name -> !before.contains(name) && !name.startsWith(SHARED_ELECTION_THREADS)
                            && !name.startsWith(SHARED_LISTENER_THREADS)))
                    .as("threads after closing").isEmpty());
            assertThat(liveThreads().stream().filter(name -> name.startsWith(SHARED_LISTENER_THREADS)))
                    .as("shared listener threads after 6 elections, each with the event recorder").hasSizeLessThanOrEqualTo(6);
            // At most one worker per queue running at once: each election's, and each store session's (one per
            // store, six here), plus the one shared timer thread.
            assertThat(liveThreads().stream().filter(name -> name.startsWith(SHARED_ELECTION_THREADS)))
                    .as("shared election threads after 6 elections on 6 stores").hasSizeLessThanOrEqualTo(6 + 6 + 1);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(connectedClients(redis)).as("clients connected to Redis").isZero());
        }
    }

    /** Clients connected to the server, not counting the probe itself. */
    private static long connectedClients(RedisServer redis) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> probe = client.connect()) {
            return probe.sync().clientList().lines().filter(line -> !line.isBlank()).count() - 1;
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
