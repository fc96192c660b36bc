package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.StoreException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link LeaderRecordStore} contract as tests: the seed 004 leader record with a compare-and-set on the term. A
 * backend's test extends this class and implements {@link #newStore()}; {@link StoreConformanceSuite} runs it for
 * every {@code CoordinationStore}, and {@code baton-peer} runs it for its stand-alone and file stores.
 *
 * <p>Each test works in its own group, so a backend may share one server (or directory) across tests.
 */
public abstract class LeaderRecordStoreConformanceSuite {

    private static final int CALL_TIMEOUT_SECONDS = 10;

    /**
     * A new client on the backend under test, closed after each test. Clients opened within one test must see the
     * same records; an in-process backend may return the same instance every time.
     */
    protected abstract LeaderRecordStore newStore();

    protected LeaderRecordStore store;
    protected String group;
    private final List<LeaderRecordStore> opened = new ArrayList<>();

    @BeforeEach
    void openLeaderStore() {
        store = open();
        group = "leader-" + UUID.randomUUID();
    }

    @AfterEach
    void closeLeaderStores() {
        opened.forEach(LeaderRecordStore::close);
        opened.clear();
    }

    /** Opens one more client on the same backend, closed after the test. */
    protected LeaderRecordStore open() {
        LeaderRecordStore s = newStore();
        opened.add(s);
        return s;
    }

    private static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("leader store call failed: " + e, e);
        }
    }

    private LeaderRecord record(long term, String leaderId) {
        return record(group, term, leaderId);
    }

    private static LeaderRecord record(String group, long term, String leaderId) {
        return new LeaderRecord(group, term, leaderId, 1 + Math.floorMod(leaderId.hashCode(), 1000),
                "10.0.0." + (1 + Math.floorMod(leaderId.hashCode(), 200)) + ":7946");
    }

    private LeaderRecordWrite write(LeaderRecord record) {
        return get(store.writeLeader(record));
    }

    private Optional<LeaderRecord> read() {
        return get(store.readLeader(group));
    }

    // ---------------------------------------------------------------- single writer

    @Test
    void aGroupWithoutARecordReadsEmpty() {
        assertThat(read()).isEmpty();
        assertThat(get(open().readLeader("never-written-" + group))).isEmpty();
    }

    @Test
    void theFirstRecordIsStoredAndEveryClientReadsItBack() {
        LeaderRecord first = new LeaderRecord(group, 3, "node-a", 1, "127.0.0.1:7001");

        LeaderRecordWrite result = write(first);

        assertThat(result).isEqualTo(new LeaderRecordWrite(true, first));
        assertThat(read()).contains(first);
        assertThat(get(open().readLeader(group))).contains(first);
    }

    @Test
    void theLeaderMayRefreshItsOwnRecordInItsTerm() {
        write(new LeaderRecord(group, 4, "node-a", 1, "127.0.0.1:7001"));
        LeaderRecord refreshed = new LeaderRecord(group, 4, "node-a", 2, "127.0.0.1:7101");

        LeaderRecordWrite result = write(refreshed);

        assertThat(result).isEqualTo(new LeaderRecordWrite(true, refreshed));
        assertThat(read()).contains(refreshed);
    }

    @Test
    void anotherLeaderInTheSameTermIsRefusedWithTheStoredRecord() {
        LeaderRecord holder = record(5, "node-a");
        write(holder);

        LeaderRecordWrite result = get(open().writeLeader(record(5, "node-b")));

        assertThat(result).isEqualTo(new LeaderRecordWrite(false, holder));
        assertThat(read()).contains(holder);
    }

    @Test
    void aLowerTermIsRefusedEvenFromTheSameLeader() {
        LeaderRecord newer = record(7, "node-b");
        write(newer);

        assertThat(write(record(6, "node-a"))).isEqualTo(new LeaderRecordWrite(false, newer));
        assertThat(write(record(6, "node-b"))).isEqualTo(new LeaderRecordWrite(false, newer));
        assertThat(write(record(1, "node-c"))).isEqualTo(new LeaderRecordWrite(false, newer));
        assertThat(read()).contains(newer);
    }

    @Test
    void aHigherTermReplacesTheRecordWhoeverHoldsIt() {
        write(record(2, "node-a"));
        LeaderRecord successor = record(3, "node-b");

        assertThat(write(successor)).isEqualTo(new LeaderRecordWrite(true, successor));
        LeaderRecord jump = record(Long.MAX_VALUE - 1, "node-a");
        assertThat(write(jump)).isEqualTo(new LeaderRecordWrite(true, jump));
        assertThat(read()).contains(jump);
        assertThat(write(record(Long.MAX_VALUE - 2, "node-b")).accepted()).as("one below a huge term").isFalse();
    }

    @Test
    void groupsAreIndependent() {
        String other = group + "-other";
        LeaderRecord here = record(9, "node-a");
        write(here);

        LeaderRecordWrite elsewhere = write(record(other, 1, "node-b"));

        assertThat(elsewhere).isEqualTo(new LeaderRecordWrite(true, record(other, 1, "node-b")));
        assertThat(read()).contains(here);
        assertThat(get(store.readLeader(other))).contains(record(other, 1, "node-b"));
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void concurrentWritersOfOneTermGetExactlyOneAcceptance() {
        List<LeaderRecordStore> clients = List.of(store, open(), open(), open());
        List<CompletableFuture<LeaderRecordWrite>> writes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            writes.add(clients.get(i % clients.size()).writeLeader(record(8, "node-" + i)));
        }

        List<LeaderRecordWrite> results = writes.stream().map(LeaderRecordStoreConformanceSuite::get).toList();

        List<LeaderRecordWrite> accepted = results.stream().filter(LeaderRecordWrite::accepted).toList();
        assertThat(accepted).hasSize(1);
        LeaderRecord winner = accepted.get(0).current();
        assertThat(results).allSatisfy(result -> assertThat(result.current()).isEqualTo(winner));
        assertThat(read()).contains(winner);
    }

    /**
     * Several clients write random terms and leaders at once. Every answer must be explained by the rule, one
     * client's successive answers never show a lower term, a term is accepted for one leader only, and the record
     * left is the highest accepted. A failure names the seed: {@code -Dleader.seed=<seed>} sends the same writes
     * again (the interleaving is the store's and the threads').
     */
    @Test
    void theTermNeverGoesDownUnderRandomConcurrentWrites() throws Exception {
        long seed = Long.getLong("leader.seed", new Random().nextLong());
        int clientCount = 4;
        int writesPerClient = 40;
        List<LeaderRecordStore> clients = new ArrayList<>(List.of(store));
        while (clients.size() < clientCount) {
            clients.add(open());
        }
        ExecutorService threads = Executors.newFixedThreadPool(clientCount);
        List<Future<List<Step>>> runs = new ArrayList<>();
        try {
            for (int c = 0; c < clientCount; c++) {
                LeaderRecordStore client = clients.get(c);
                Random random = new Random(seed + c);
                runs.add(threads.submit(() -> randomWrites(client, random, writesPerClient)));
            }
            Map<Long, Set<String>> leadersByTerm = new HashMap<>();
            long highestAccepted = 0;
            for (Future<List<Step>> run : runs) {
                List<Step> steps = run.get(writesPerClient * 2L * CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                long seen = 0;
                for (Step step : steps) {
                    String context = "seed " + seed + ", " + step;
                    assertThat(step.seenTerm()).as("term went down; %s", context).isGreaterThanOrEqualTo(seen);
                    seen = step.seenTerm();
                    if (step.write() == null) {
                        continue;
                    }
                    LeaderRecord sent = step.write();
                    LeaderRecordWrite answer = step.answer();
                    if (answer.accepted()) {
                        assertThat(answer.current()).as(context).isEqualTo(sent);
                        leadersByTerm.computeIfAbsent(sent.term(), t -> new HashSet<>()).add(sent.leaderId());
                        highestAccepted = Math.max(highestAccepted, sent.term());
                    } else {
                        LeaderRecord stored = answer.current();
                        assertThat(stored.term() > sent.term()
                                || (stored.term() == sent.term() && !stored.leaderId().equals(sent.leaderId())))
                                .as("refusal not explained by the stored record; %s", context).isTrue();
                    }
                }
            }
            leadersByTerm.forEach((term, leaders) ->
                    assertThat(leaders).as("leaders accepted for term %d (seed %d)", term, seed).hasSize(1));
            assertThat(read()).as("seed %d", seed)
                    .hasValueSatisfying(r -> assertThat(r.term()).isEqualTo(leadersByTerm.keySet().stream()
                            .mapToLong(Long::longValue).max().orElseThrow()));
            assertThat(highestAccepted).isPositive();
        } finally {
            threads.shutdownNow();
        }
    }

    /** One write or read and the term it showed: the stored term after the call. */
    private record Step(LeaderRecord write, LeaderRecordWrite answer, long seenTerm) {

        @Override
        public String toString() {
            return write == null ? "read term " + seenTerm : "wrote " + write + " -> " + answer;
        }
    }

    private List<Step> randomWrites(LeaderRecordStore client, Random random, int count) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (random.nextInt(4) == 0) {
                Optional<LeaderRecord> current = get(client.readLeader(group));
                steps.add(new Step(null, null, current.map(LeaderRecord::term).orElse(0L)));
            } else {
                LeaderRecord sent = new LeaderRecord(group, 1 + random.nextInt(12), "node-" + random.nextInt(3),
                        1 + random.nextInt(5), "127.0.0.1:" + (7000 + random.nextInt(5)));
                LeaderRecordWrite answer = get(client.writeLeader(sent));
                steps.add(new Step(sent, answer, answer.current().term()));
            }
        }
        return steps;
    }

    // ---------------------------------------------------------------- lifecycle

    @Test
    void afterCloseCallsFailWithAStoreExceptionAndTheRecordStays() {
        LeaderRecordStore client = open();
        LeaderRecord written = record(4, "node-a");
        assertThat(get(client.writeLeader(written)).accepted()).isTrue();

        client.close();
        client.close();

        assertFailsWithStoreException(client.readLeader(group));
        assertFailsWithStoreException(client.writeLeader(record(5, "node-b")));
        if (client != store) {
            assertThat(read()).contains(written);
        }
    }

    private static void assertFailsWithStoreException(CompletableFuture<?> call) {
        try {
            Object value = call.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            fail("a call on a closed store succeeded with " + value);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(StoreException.class);
        } catch (TimeoutException e) {
            fail("a call on a closed store did not complete within " + CALL_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
