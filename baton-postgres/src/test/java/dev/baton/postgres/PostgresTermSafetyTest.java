package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.FencedMapWrite;
import dev.baton.core.store.FencedWriteResult;
import dev.baton.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A term is issued once, even by a database that comes back older than the terms it issued: restored from a backup
 * taken before them (here: {@link PostgresServer#restoreSchema}, a crash and the schema's rows put back as they were
 * at the snapshot). The next grant is above every term issued before the restore, and the fenced register and map
 * then refuse every one of those terms.
 */
class PostgresTermSafetyTest {

    private static final String GROUP = "restored";
    /** Short, so that the lease restored from the snapshot expires soon and another node can take it. */
    private static final Duration RESTORED_LEASE = Duration.ofSeconds(2);
    private static final Duration LONG = Duration.ofMinutes(1);
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    private PostgresServer postgres;
    private PostgresStore store;

    @BeforeEach
    void start() {
        postgres = PostgresServer.start();
        store = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri())
                .statementTimeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(2)).build());
    }

    @AfterEach
    void stop() {
        store.close();
        postgres.close();
    }

    @Test
    void aDatabaseRestoredFromAnOlderBackupNeverIssuesATermAgainAndFencesEveryEarlierOne() throws Exception {
        long first = granted(store.leases().acquire(GROUP, NodeInfo.of("a", "a"), RESTORED_LEASE).join());
        assertThat(store.registers().fencedWrite(GROUP, "register", "a", first, bytes("a")).join().accepted()).isTrue();
        assertThat(store.maps().fencedPut(GROUP, "map", "k", "a", first, bytes("a")).join().accepted()).isTrue();
        PostgresServer.SchemaSnapshot backup = postgres.snapshotSchema("baton");

        assertThat(store.leases().release(GROUP, "a", first).join()).isTrue();
        long second = granted(store.leases().acquire(GROUP, NodeInfo.of("b", "b"), LONG).join());
        assertThat(second).isGreaterThan(first);
        assertThat(store.registers().fencedWrite(GROUP, "register", "b", second, bytes("b")).join().accepted())
                .isTrue();
        assertThat(store.maps().fencedPut(GROUP, "map", "k", "b", second, bytes("b")).join().accepted()).isTrue();

        postgres.restoreSchema(backup);

        // The restored row names "a" under the first term until its lease runs out; then "c" takes it. The first
        // calls after the crash may fail on pooled connections the crash closed.
        AtomicLong third = new AtomicLong();
        await().atMost(GENEROUS).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
            AcquireResult result = store.leases().acquire(GROUP, NodeInfo.of("c", "c"), LONG).get(5, TimeUnit.SECONDS);
            if (result instanceof AcquireResult.Granted granted) {
                third.set(granted.term());
                return true;
            }
            return false;
        });

        assertThat(third.get()).as("the first grant after the restore is above every term issued before it")
                .isGreaterThan(second);
        assertThat(store.leases().renew(GROUP, "b", second, LONG).join()).as("the deposed holder renews").isFalse();
        for (long stale : new long[] {second, first}) {
            assertThat(store.registers().fencedWrite(GROUP, "register", "b", stale, bytes("stale")).join())
                    .as("register write under %d", stale).isEqualTo(new FencedWriteResult(false, third.get()));
            assertThat(store.maps().fencedPut(GROUP, "map", "k", "b", stale, bytes("stale")).join())
                    .as("map put under %d", stale).isEqualTo(new FencedMapWrite(false, third.get(), false));
            assertThat(store.maps().fencedRemove(GROUP, "map", "k", "b", stale).join().accepted())
                    .as("map remove under %d", stale).isFalse();
        }
        assertThat(store.registers().fencedWrite(GROUP, "register", "c", third.get(), bytes("c")).join().accepted())
                .isTrue();
        assertThat(store.maps().fencedPut(GROUP, "map", "k", "c", third.get(), bytes("c")).join())
                .isEqualTo(new FencedMapWrite(true, third.get(), true));
        assertThat(store.registers().fencedRead(GROUP, "register").join()).hasValueSatisfying(v -> {
            assertThat(v.term()).isEqualTo(third.get());
            assertThat(v.writer()).isEqualTo("c");
        });
    }

    @Test
    void termsStayAboveTheDatabaseClockInMicrosecondsAndStrictlyIncrease() {
        long before = epochMicrosOfDatabase();
        long first = granted(store.leases().acquire("clock", NodeInfo.of("a", "a"), LONG).join());
        long again = granted(store.leases().acquire("clock", NodeInfo.of("a", "a"), LONG).join());
        long after = epochMicrosOfDatabase();

        assertThat(first).isBetween(before, after);
        assertThat(again).isGreaterThan(first).isLessThanOrEqualTo(after);
    }

    private long epochMicrosOfDatabase() {
        return ((Number) RawPostgres.value(postgres,
                "SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 1000000) AS bigint)")).longValue();
    }

    private static long granted(AcquireResult result) {
        assertThat(result).isInstanceOf(AcquireResult.Granted.class);
        return ((AcquireResult.Granted) result).term();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
