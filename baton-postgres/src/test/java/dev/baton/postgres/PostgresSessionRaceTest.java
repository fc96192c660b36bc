package dev.baton.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.core.store.SessionStore;
import dev.baton.testkit.PostgresServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The race the session role must never lose: a keep-alive of the session holding a group arrives just as its TTL
 * runs out, while another node's acquire of that group arrives too. Whatever the order in the database, exactly one
 * side may win: either the keep-alive succeeds and the acquire is denied, or the acquire is granted and the session
 * has ended for good (its keep-alive is refused), never both. Timed around the session's expiry on many groups, so
 * that the two statements overlap in every way, including a keep-alive that the acquire's snapshot cannot see.
 */
class PostgresSessionRaceTest {

    private static final Duration TTL = Duration.ofMillis(400);
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final int ROUNDS = 60;

    private static PostgresServer postgres;
    private static PostgresStore holder;
    private static PostgresStore contender;

    @BeforeAll
    static void start() {
        postgres = PostgresServer.start();
        holder = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).poolSize(2).build());
        contender = PostgresStore.connect(PostgresStoreOptions.builder().uri(postgres.uri()).poolSize(2).build());
    }

    @AfterAll
    static void stop() {
        holder.close();
        contender.close();
        postgres.close();
    }

    @Test
    void aKeepAliveAndATakeoverAtTheSessionsExpiryNeverBothSucceed() throws Exception {
        SessionStore a = holder.sessions().orElseThrow();
        SessionStore b = contender.sessions().orElseThrow();
        String other = b.open(NodeInfo.of("b", "b"), LONG).join();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String group = "race-" + round;
                String session = a.open(NodeInfo.of("a", "a"), TTL).join();
                assertThat(a.acquire(group, session, NodeInfo.of("a", "a")).join())
                        .isInstanceOf(AcquireResult.Granted.class);
                // Both land within a few ms of the expiry, on either side of it, in varying order.
                long at = TTL.toMillis() - 6 + round % 12;
                CompletableFuture<Boolean> keepAlive = new CompletableFuture<>();
                CompletableFuture<AcquireResult> takeover = new CompletableFuture<>();
                timer.schedule(() -> a.keepAlive(session, LONG).whenComplete(CompletableFutureRelay.to(keepAlive)),
                        at, TimeUnit.MILLISECONDS);
                timer.schedule(() -> b.acquire(group, other, NodeInfo.of("b", "b"))
                        .whenComplete(CompletableFutureRelay.to(takeover)), at + (round % 3) - 1,
                        TimeUnit.MILLISECONDS);

                boolean alive = keepAlive.get(10, TimeUnit.SECONDS);
                boolean granted = takeover.get(10, TimeUnit.SECONDS) instanceof AcquireResult.Granted;

                assertThat(alive && granted).as("round %d: the keep-alive and the takeover both succeeded", round)
                        .isFalse();
                if (alive) {
                    // The session lives on, so the group is still its own and a later keep-alive succeeds too.
                    assertThat(b.acquire(group, other, NodeInfo.of("b", "b")).join())
                            .isInstanceOf(AcquireResult.Denied.class);
                    assertThat(a.close(session).join()).isTrue();
                } else {
                    assertThat(a.keepAlive(session, LONG).join()).as("round %d: an ended session came back", round)
                            .isFalse();
                }
            }
        } finally {
            timer.shutdownNow();
        }
    }

    /** Completes another future with a future's outcome. */
    private static final class CompletableFutureRelay {
        static <T> java.util.function.BiConsumer<T, Throwable> to(CompletableFuture<T> target) {
            return (value, error) -> {
                if (error != null) {
                    target.completeExceptionally(error);
                } else {
                    target.complete(value);
                }
            };
        }
    }
}
