package dev.baton.peer.bully;

import dev.baton.core.store.LeaderRecord;
import dev.baton.core.store.LeaderRecordStore;
import dev.baton.core.store.LeaderRecordWrite;
import dev.baton.core.store.StoreException;
import dev.baton.core.time.Scheduler;
import dev.baton.peer.transport.PeerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A leader store on the simulated network's scheduler: one record per group, decided by the real compare-and-set
 * rule, with latency (a call takes effect a few milliseconds after it is made and is answered a few milliseconds
 * after that), nodes that cannot reach it, and a store that is down for everyone. A call from a node that cannot
 * reach the store never answers (the caller times out) or fails at once, at random. Every stored term is recorded,
 * so a test can check that the term never went down.
 */
final class SimLeaderStore {

    private final Scheduler scheduler;
    private final Random random;
    private final Set<PeerAddress> cutOff = new HashSet<>();
    private final List<Long> termHistory = new ArrayList<>();
    private Duration minLatency = Duration.ofMillis(1);
    private Duration maxLatency = Duration.ofMillis(3);
    private LeaderRecord record;
    private boolean down;
    private boolean blindWrites;
    private int reads;
    private int writes;

    SimLeaderStore(Scheduler scheduler, Random random) {
        this.scheduler = scheduler;
        this.random = random;
    }

    /** The store as node {@code node} reaches it. */
    LeaderRecordStore clientFor(PeerAddress node) {
        return new Client(node);
    }

    synchronized Optional<LeaderRecord> record() {
        return Optional.ofNullable(record);
    }

    /** Puts a record in place as if written long ago (a stale record at a cold start). */
    synchronized void seed(LeaderRecord stale) {
        record = stale;
        termHistory.add(stale.term());
    }

    synchronized List<Long> termHistory() {
        return List.copyOf(termHistory);
    }

    synchronized int reads() {
        return reads;
    }

    synchronized int writes() {
        return writes;
    }

    synchronized void latency(Duration min, Duration max) {
        this.minLatency = min;
        this.maxLatency = max;
    }

    synchronized void cutOff(PeerAddress node) {
        cutOff.add(node);
    }

    synchronized void reconnect(PeerAddress node) {
        cutOff.remove(node);
    }

    synchronized void down(boolean value) {
        down = value;
    }

    /** Breaks the store on purpose: every write is accepted (a plain set, no compare-and-set). */
    synchronized void blindWrites() {
        blindWrites = true;
    }

    synchronized void healAll() {
        cutOff.clear();
        down = false;
    }

    private synchronized Duration delay() {
        long min = minLatency.toNanos();
        long span = maxLatency.toNanos() - min;
        return Duration.ofNanos(min + (span <= 0 ? 0 : (long) (random.nextDouble() * span)));
    }

    private synchronized boolean reachable(PeerAddress node) {
        return !down && !cutOff.contains(node);
    }

    private final class Client implements LeaderRecordStore {
        private final PeerAddress node;

        Client(PeerAddress node) {
            this.node = node;
        }

        @Override
        public CompletableFuture<Optional<LeaderRecord>> readLeader(String group) {
            return call(() -> {
                synchronized (SimLeaderStore.this) {
                    reads++;
                    return Optional.ofNullable(record);
                }
            });
        }

        @Override
        public CompletableFuture<LeaderRecordWrite> writeLeader(LeaderRecord proposed) {
            return call(() -> {
                synchronized (SimLeaderStore.this) {
                    writes++;
                    LeaderRecordWrite result = blindWrites ? new LeaderRecordWrite(true, proposed)
                            : LeaderRecordRule.decide(record, proposed);
                    if (result.accepted()) {
                        record = proposed;
                        termHistory.add(proposed.term());
                    }
                    return result;
                }
            });
        }

        private <T> CompletableFuture<T> call(java.util.function.Supplier<T> effect) {
            CompletableFuture<T> answer = new CompletableFuture<>();
            if (!reachable(node)) {
                boolean failFast;
                synchronized (SimLeaderStore.this) {
                    failFast = random.nextBoolean();
                }
                if (failFast) {
                    scheduler.schedule(delay(), () -> answer.completeExceptionally(
                            new StoreException("simulated store unreachable from " + node)));
                }
                return answer;
            }
            scheduler.schedule(delay(), () -> {
                T value = effect.get();
                scheduler.schedule(delay(), () -> answer.complete(value));
            });
            return answer;
        }

        @Override
        public String describe() {
            return "sim";
        }

        @Override
        public void close() {
        }
    }
}
