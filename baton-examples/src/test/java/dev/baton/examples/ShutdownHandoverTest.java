package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.store.Lease;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.Subscription;
import dev.baton.redis.RedisStore;
import dev.baton.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two copies of {@link LeaderOnlyScheduler} in their own JVMs, with the default 30 s lease: SIGTERM on the leader (a
 * Ctrl-C, {@code kill}, or a container stop) runs the election's shutdown hook, which releases the lease, and the other
 * copy takes over on the release notice — not when the lease expires, as it did when only try-with-resources would
 * have closed the election (it never runs on a signal). The serverless builders register the same hook: a bully
 * leader stopped the same way tells its listeners and resigns.
 */
class ShutdownHandoverTest {

    private static final String GROUP = "orders-scheduler";
    private static final Pattern LEADER_TERM = Pattern.compile("^leader of " + GROUP + " with term (\\d+)$");
    /** A line naming the leader a node follows (or itself): group 1 is its id, group 2 its term. */
    private static final Pattern LEADER_IS = Pattern.compile("^leader is (\\S+) \\(term (\\d+)\\)$");
    private static final Pattern LEADER_LINE = Pattern.compile("^(leader is .*)$");
    /** What a JVM that ran its shutdown hooks after SIGTERM exits with: 128 + 15. */
    private static final int EXIT_ON_SIGTERM = 143;
    private static final Duration CHILD_START = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void sigtermOnTheLeaderReleasesTheLeaseAndTheOtherCopyTakesOverBeforeItWouldHaveExpired() throws Exception {
        List<LeaseNotice> notices = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.connect(redis.uri());
             Subscription watch = store.leases().watch(GROUP, notices::add)) {
            watch.ready().get(10, TimeUnit.SECONDS);
            try (ExampleProcess first = ExampleProcess.start(LeaderOnlyScheduler.class, dir, redis.uri(), GROUP)) {
                long firstTerm = Long.parseLong(await().atMost(CHILD_START)
                        .until(() -> first.find(LEADER_TERM), found -> found.isPresent()).orElseThrow());
                String firstId = first.nodeId().orElseThrow();
                try (ExampleProcess second = ExampleProcess.start(LeaderOnlyScheduler.class, dir, redis.uri(),
                        GROUP)) {
                    String following = "leader is " + firstId + " (term " + firstTerm + ")";
                    await().atMost(CHILD_START).until(() -> second.lines().contains(following));
                    String secondId = second.nodeId().orElseThrow();

                    // When, by the store's own clock, the first copy's lease would expire if nobody released it.
                    Lease held = store.leases().read(GROUP).get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(held.owner()).isEqualTo(firstId);
                    assertThat(held.term()).isEqualTo(firstTerm);
                    long wouldExpireAt = storeMicros(redis) + held.remaining().toNanos() / 1_000;

                    first.terminate();

                    assertThat(first.awaitExit(60)).as(first.describe()).isEqualTo(EXIT_ON_SIGTERM);
                    assertThat(first.lines()).as("the leader's listener heard it end before the JVM exited")
                            .contains("no longer leader (term " + firstTerm + ", RELEASED)");
                    long secondTerm = Long.parseLong(await().atMost(Duration.ofSeconds(60))
                            .until(() -> second.find(LEADER_TERM), found -> found.isPresent()).orElseThrow());
                    long takenOverBy = storeMicros(redis);

                    assertThat(secondTerm).isGreaterThan(firstTerm);
                    Lease taken = store.leases().read(GROUP).get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(taken.owner()).isEqualTo(secondId);
                    assertThat(taken.term()).isEqualTo(secondTerm);
                    // The store grants an unexpired lease to nobody: taken before its expiry, it had been released.
                    assertThat(takenOverBy).as("store time of the takeover vs the old lease's expiry")
                            .isLessThan(wouldExpireAt);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(notices)
                            .containsSubsequence(new LeaseNotice(LeaseNotice.Kind.RELEASED, firstId, firstTerm),
                                    new LeaseNotice(LeaseNotice.Kind.ACQUIRED, secondId, secondTerm)));
                }
            }
        }
    }

    @Test
    void sigtermOnABullyLeaderHandsOverThroughItsResignation() throws Exception {
        String record = dir.resolve("leader.json").toString();
        try (ExampleProcess first = ExampleProcess.start(BullyNodeMain.class, dir, freePort(), record, GROUP);
             ExampleProcess second = ExampleProcess.start(BullyNodeMain.class, dir, freePort(), record, GROUP)) {
            // Whichever leads once both follow the same leader (the bully order may hand it to the later joiner).
            Matcher settled = LEADER_IS.matcher(await().atMost(CHILD_START)
                    .until(() -> agreedLeader(first, second), found -> found != null));
            assertThat(settled.matches()).isTrue();
            ExampleProcess leader = settled.group(1).equals(first.nodeId().orElseThrow()) ? first : second;
            ExampleProcess other = leader == first ? second : first;
            long leaderTerm = Long.parseLong(settled.group(2));

            leader.terminate();

            assertThat(leader.awaitExit(60)).as(leader.describe()).isEqualTo(EXIT_ON_SIGTERM);
            assertThat(leader.lines()).as("the leader's listener heard it end before the JVM exited")
                    .contains("no longer leader (term " + leaderTerm + ", RELEASED)");
            long nextTerm = Long.parseLong(await().atMost(Duration.ofSeconds(60))
                    .until(() -> other.findLast(LEADER_TERM), found -> found.isPresent()).orElseThrow());
            assertThat(nextTerm).isGreaterThan(leaderTerm);
        }
    }

    /** The {@code leader is} line both nodes printed last, when it is the same line, else null. */
    private static String agreedLeader(ExampleProcess a, ExampleProcess b) {
        Optional<String> seenByA = a.findLast(LEADER_LINE);
        Optional<String> seenByB = b.findLast(LEADER_LINE);
        return seenByA.isPresent() && seenByA.equals(seenByB) ? seenByA.get() : null;
    }

    private static String freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return Integer.toString(socket.getLocalPort());
        }
    }

    /** The Redis server's clock ({@code TIME}) in microseconds: the clock lease expiry is decided by. */
    private static long storeMicros(RedisServer redis) {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> time = connection.sync().time();
            return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
        } finally {
            client.shutdown();
        }
    }
}
