package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.StoreException;
import dev.baton.core.store.StoreTimeoutException;
import dev.baton.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No store call outlives its timeouts, whatever the server does, and each failure says what happened. The bounds
 * below are the configured timeouts plus generous slack: they check that calls end, not how fast.
 */
class PostgresStoreFaultsTest {

    private static final Duration STATEMENT_TIMEOUT = Duration.ofMillis(300);
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);
    /** statement + connect timeouts + the network slack, plus room for a busy machine. */
    private static final long BOUND_SECONDS = 10;

    private static PostgresServer postgres;

    private PostgresStore store;
    private String group;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        postgres.close();
    }

    @BeforeEach
    void open() {
        store = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri())
                .statementTimeout(STATEMENT_TIMEOUT).connectTimeout(CONNECT_TIMEOUT).build());
        group = "faults-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        postgres.resume();
        store.close();
    }

    private static Throwable failureOf(CompletableFuture<?> call) throws Exception {
        try {
            call.get(BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }

    @Test
    void aStatementBlockedByALockEndsWithTheStatementTimeout() throws Exception {
        long term = ((AcquireResult.Granted) store.leases().acquire(group, NodeInfo.of("a", "a"), Duration
                .ofMinutes(1)).join())
                .term();
        try (Connection locker = RawPostgres.connect(postgres)) {
            locker.setAutoCommit(false);
            try (PreparedStatement ps = locker.prepareStatement(
                    "SELECT 1 FROM baton.leader_lease WHERE group_name = ? FOR UPDATE")) {
                ps.setString(1, group);
                ps.executeQuery().close();
            }

            Throwable failure = failureOf(store.leases().renew(group, "a", term, Duration.ofMinutes(1)));

            assertThat(failure).isInstanceOf(StoreTimeoutException.class)
                    .hasMessage("renew on " + store.describe() + " timed out after 300 ms (statement_timeout)");
            locker.rollback();
        }
        assertThat(store.leases().renew(group, "a", term, Duration.ofMinutes(1)).get(BOUND_SECONDS, TimeUnit.SECONDS))
                .isTrue();
    }

    @Test
    void whileTheServerIsDownCallsFailNamingItAndWorkAgainAfterItsBack() throws Exception {
        postgres.stop();
        try {
            // The first calls may still find a pooled connection, which the shutdown closed: they say so.
            Throwable first = failureOf(store.leases().read(group));
            assertThat(first).isInstanceOf(StoreException.class).hasMessageContaining("127.0.0.1:" + postgres.port());

            await().atMost(Duration.ofSeconds(BOUND_SECONDS)).untilAsserted(() ->
                    assertThat(failureOf(store.leases().read(group))).isInstanceOf(StoreException.class)
                            .hasMessageContaining("cannot reach PostgreSQL at 127.0.0.1:" + postgres.port()));
        } finally {
            postgres.restart();
        }

        await().atMost(Duration.ofSeconds(BOUND_SECONDS)).ignoreExceptions().until(() ->
                store.leases().acquire(group, NodeInfo.of("a", "a"), Duration.ofMinutes(1)).get(BOUND_SECONDS,
                        TimeUnit.SECONDS) instanceof AcquireResult.Granted);
    }

    @Test
    void whileTheServerHangsCallsTimeOutAndWorkAgainAfterItResumes() throws Exception {
        store.leases().read(group).join();

        postgres.pause();
        try {
            Throwable failure = failureOf(store.leases().read(group));

            assertThat(failure).isInstanceOf(StoreTimeoutException.class).hasMessageContaining(store.describe());
        } finally {
            postgres.resume();
        }

        await().atMost(Duration.ofSeconds(BOUND_SECONDS)).ignoreExceptions().until(() ->
                store.leases().read(group).get(BOUND_SECONDS, TimeUnit.SECONDS).isEmpty());
    }

    @Test
    void callsQueuedLongerThanTheirTimeoutsAreDroppedNotReplayedWhenTheServerResumes() throws Exception {
        store.leases().read(group).join();
        postgres.pause();
        Map<String, CompletableFuture<Void>> calls = new LinkedHashMap<>();
        try {
            for (int i = 0; i < 40; i++) {
                String id = "n" + i;
                calls.put(id, store.registry().register(group, NodeInfo.of(id, "n"), Duration.ofMinutes(1)));
            }
            await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> !dropped(calls).isEmpty());
        } finally {
            postgres.resume();
        }
        for (CompletableFuture<Void> call : calls.values()) {
            call.handle((ok, error) -> null).get(BOUND_SECONDS, TimeUnit.SECONDS);
        }

        Set<String> dropped = dropped(calls);
        assertThat(dropped).isNotEmpty();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() ->
                store.registry().members(group).get(BOUND_SECONDS, TimeUnit.SECONDS).stream()
                        .noneMatch(member -> dropped.contains(member.id())));
    }

    /** The calls that failed without running: they waited in the queue longer than all their timeouts. */
    private static Set<String> dropped(Map<String, CompletableFuture<Void>> calls) {
        Set<String> dropped = new HashSet<>();
        calls.forEach((id, call) -> {
            if (call.isCompletedExceptionally()) {
                Throwable error = call.handle((ok, e) -> e).join();
                if (error instanceof StoreTimeoutException && error.getMessage().contains("was not started")) {
                    dropped.add(id);
                }
            }
        });
        return dropped;
    }
}
