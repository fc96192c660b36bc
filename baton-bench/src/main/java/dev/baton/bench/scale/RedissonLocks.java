package dev.baton.bench.scale;

import dev.baton.bench.support.RedissonClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link RLock}, one per group, all on the same client: {@code lockAsync(threadId)} without a lease time,
 * so the lock watchdog keeps it (the non-blocking form of {@code lock()}: one process holding many locks does not
 * park a thread per lock), and {@code unlockAsync(threadId)} to give it up. A waiting lock holds a subscription to
 * its release channel, so the client takes as many subscriptions per connection as it has groups.
 */
final class RedissonLocks implements GroupClient {

    /** Lock owners are {@code clientId:threadId}; each set gets its own id, as if each ran on a thread of its own. */
    private static final AtomicLong OWNERS = new AtomicLong();

    private final RedissonClient client;

    RedissonLocks(String uri, int groups) {
        this.client = RedissonClients.create(uri, Math.max(5, groups));
    }

    @Override
    public GroupSet open(String prefix, int n, String node) {
        return new Locks(client, prefix, n, OWNERS.incrementAndGet(), new ArrayList<>());
    }

    @Override
    public String timings() {
        return "lock watchdog: lock TTL " + leaseTtl().toSeconds() + " s, renewed every "
                + renewInterval().toSeconds() + " s";
    }

    @Override
    public Duration leaseTtl() {
        return Duration.ofMillis(client.getConfig().getLockWatchdogTimeout());
    }

    /** The watchdog renews a held lock every third of its timeout. */
    @Override
    public Duration renewInterval() {
        return leaseTtl().dividedBy(3);
    }

    @Override
    public void close() {
        client.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
    }

    private record Locks(RedissonClient client, String prefix, int n, long owner, List<RLock> locks)
            implements GroupSet {

        @Override
        public List<CompletableFuture<Long>> start() {
            return GroupSet.startEach(prefix, n, group -> {
                RLock lock = client.getLock(group);
                locks.add(lock);
                return lock.lockAsync(owner).toCompletableFuture().thenApply(locked -> System.nanoTime());
            });
        }

        /** Polls {@code PUBSUB NUMSUB} of each lock's release channel until someone waits on it (at most 30 s). */
        @Override
        public CompletableFuture<Void> contending() {
            return CompletableFuture.runAsync(() -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                for (RLock lock : locks) {
                    var channel = client.getTopic("redisson_lock__channel:{" + lock.getName() + "}");
                    while (channel.countSubscribers() < 1) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("nobody waits on " + lock.getName());
                        }
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            });
        }

        @Override
        public int stillHeld() {
            return (int) locks.stream().filter(RLock::isLocked).count();
        }

        @Override
        public CompletableFuture<Void> closeAll() {
            return CompletableFuture.allOf(locks.stream().map(lock -> lock.unlockAsync(owner).toCompletableFuture())
                    .toArray(CompletableFuture[]::new));
        }
    }
}
