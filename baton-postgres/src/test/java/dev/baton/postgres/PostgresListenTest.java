package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.LeaseNotice;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.Subscription;
import dev.baton.testkit.PostgresServer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The dedicated LISTEN connection comes back by itself after it drops, and notices flow again. */
class PostgresListenTest {

    private static final AtomicInteger APPS = new AtomicInteger();

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    private static Object listenPid(String app) {
        return RawPostgres.value(postgres, "SELECT pid FROM pg_stat_activity WHERE application_name = ?",
                app + ":listen");
    }

    private static PostgresStore store(String app, Duration reconnect) {
        return PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).applicationName(app)
                .listenReconnectInterval(reconnect).build());
    }

    @Test
    void aTerminatedListenConnectionIsReestablishedAndLaterNoticesArrive() {
        String app = "listen-" + APPS.incrementAndGet();
        String group = "listen-" + UUID.randomUUID();
        try (PostgresStore watcher = store(app, Duration.ofMillis(200));
             PostgresStore writer = PostgresStore.connect(postgres.uri())) {
            List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
            Subscription watch = watcher.leases().watch(group, heard::add);
            watch.ready().join();
            Object before = listenPid(app);
            assertThat(before).isNotNull();

            RawPostgres.value(postgres, "SELECT pg_terminate_backend(?)", before);

            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Object now = listenPid(app);
                return now != null && !now.equals(before);
            });
            // The new connection exists; a subscription is ready at once only when LISTEN is in effect on it.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Subscription probe = watcher.bus().subscribe("probe", message -> { });
                probe.close();
                return probe.ready().handle((ok, error) -> error == null).get(5, TimeUnit.SECONDS);
            });
            long term = ((AcquireResult.Granted) writer.leases().acquire(group, NodeInfo.of("a", "a"), Duration
                    .ofMinutes(1))
                    .join()).term();
            writer.leases().release(group, "a", term).join();

            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(heard).containsExactly(
                    new LeaseNotice(LeaseNotice.Kind.ACQUIRED, "a", term),
                    new LeaseNotice(LeaseNotice.Kind.RELEASED, "a", term)));
        }
    }

    @Test
    void anAcquireAskedForByAReleaseNoticeRunsOnTheListenConnectionAtOnce() {
        String app = "listen-" + APPS.incrementAndGet();
        String group = "listen-" + UUID.randomUUID();
        try (PostgresStore follower = store(app, Duration.ofSeconds(1));
             PostgresStore leader = PostgresStore.connect(postgres.uri())) {
            CompletableFuture<CompletableFuture<AcquireResult>> fired = new CompletableFuture<>();
            follower.leases().watch(group, notice -> {
                if (notice.kind() == LeaseNotice.Kind.RELEASED) {
                    // As an armed follower does: the acquire goes out from the thread that read the notice.
                    fired.complete(follower.leases().acquire(group, NodeInfo.of("b", "b"), Duration.ofMinutes(1)));
                }
            }).ready().join();
            long term = ((AcquireResult.Granted) leader.leases().acquire(group, NodeInfo.of("a", "a"),
                    Duration.ofMinutes(1)).join()).term();

            leader.leases().release(group, "a", term).join();

            CompletableFuture<AcquireResult> acquire = fired.orTimeout(5, TimeUnit.SECONDS).join();
            // Complete when acquire() returned: it ran on the notice's own thread and connection, not a worker's.
            assertThat(acquire).isDone();
            assertThat(acquire.join()).isInstanceOf(AcquireResult.Granted.class);
            assertThat(((AcquireResult.Granted) acquire.join()).term()).isGreaterThan(term);
            assertThat(RawPostgres.value(postgres, "SELECT query FROM pg_stat_activity WHERE application_name = ?",
                    app + ":listen")).asString().contains("INSERT INTO");
            // The connection is left as it was: later notices still arrive.
            List<LeaseNotice> heard = new CopyOnWriteArrayList<>();
            follower.leases().watch(group, heard::add).ready().join();
            leader.leases().acquire(group, NodeInfo.of("a", "a"), Duration.ofMinutes(1)).join();
            follower.leases().release(group, "b", ((AcquireResult.Granted) acquire.join()).term()).join();
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.stream()
                    .anyMatch(n -> n.kind() == LeaseNotice.Kind.RELEASED && n.owner().equals("b")));
        }
    }

    @Test
    void whileTheConnectionIsDownNewSubscriptionsReportItAndSucceedOnceItIsBack() {
        String app = "listen-" + APPS.incrementAndGet();
        try (PostgresStore watcher = store(app, Duration.ofSeconds(2))) {
            watcher.bus().subscribe("c", message -> { }).ready().join();

            RawPostgres.value(postgres, "SELECT pg_terminate_backend(?)", listenPid(app));

            await().atMost(Duration.ofSeconds(5)).until(() -> {
                Subscription probe = watcher.bus().subscribe("c", message -> { });
                probe.close();
                return probe.ready().isCompletedExceptionally();
            });
            Subscription during = watcher.bus().subscribe("c", message -> { });
            assertThatThrownBy(() -> during.ready().join()).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(StoreException.class).hasMessageContaining("LISTEN baton");
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Subscription probe = watcher.bus().subscribe("c", message -> { });
                probe.close();
                return probe.ready().isDone() && !probe.ready().isCompletedExceptionally();
            });

            List<String> received = new CopyOnWriteArrayList<>();
            watcher.bus().subscribe("c", message -> received.add(new String(message))).ready().join();
            watcher.bus().publish("c", "after".getBytes()).join();
            await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("after"));
            during.close();
        }
    }
}
