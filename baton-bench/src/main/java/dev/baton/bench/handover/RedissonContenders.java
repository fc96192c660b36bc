package dev.baton.bench.handover;

import dev.baton.bench.support.PeerVersions;
import dev.baton.bench.support.RedisAdmin;
import dev.baton.bench.support.RedissonClients;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's pub/sub {@link RLock} as three contenders: three {@link RedissonClient}s, one thread each looping
 * {@code lock()} -> hold -> {@code unlock()}. t1 is taken when {@code lock()} returns in the next holder's thread.
 *
 * <p>An RLock is owned by the thread that locked it, so the release (and t0) happens on the holder's thread when the
 * harness tells it to. After unlocking, a holder waits to rejoin until another holder took the lock: Redisson's lock
 * is not fair, so re-locking at once could simply take it back. A contender counts as waiting once its client
 * subscribed to the lock's release channel.
 */
public final class RedissonContenders implements Contenders {

    private static final int CONTENDERS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(5);

    private final String uri;
    private final String lockName;
    /** Redisson's unlock notices for the lock: {@code redisson_lock__channel:{name}}. */
    private final String channel;
    private final RedissonClient[] clients = new RedissonClient[CONTENDERS];
    private final Thread[] threads = new Thread[CONTENDERS];
    private final Semaphore[] releaseSignals = new Semaphore[CONTENDERS];
    private final Semaphore[] rejoinSignals = new Semaphore[CONTENDERS];
    private RedisAdmin admin;
    private LeaderSink sink;

    private volatile boolean closing;

    public RedissonContenders(String uri, String lockName) {
        this.uri = uri;
        this.lockName = lockName;
        this.channel = "redisson_lock__channel:{" + lockName + "}";
    }

    @Override
    public String name() {
        return "Redisson RLock " + PeerVersions.redisson();
    }

    @Override
    public String note() {
        return "lock()/unlock(), t1 when lock() returns";
    }

    @Override
    public void start(LeaderSink leaderSink) throws Exception {
        this.sink = leaderSink;
        admin = RedisAdmin.connect(uri);
        for (int i = 0; i < CONTENDERS; i++) {
            clients[i] = RedissonClients.create(uri);
            releaseSignals[i] = new Semaphore(0);
            rejoinSignals[i] = new Semaphore(0);
        }
        for (int i = 0; i < CONTENDERS; i++) {
            int contender = i;
            threads[i] = new Thread(() -> contend(contender), "redisson-contender-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        awaitWaiters(CONTENDERS - 1);
    }

    private void contend(int contender) {
        RLock lock = clients[contender].getLock(lockName);
        try {
            while (!Thread.currentThread().isInterrupted()) {
                lock.lockInterruptibly();
                sink.acquired(contender);
                releaseSignals[contender].acquire();
                sink.releasing();
                lock.unlock();
                rejoinSignals[contender].acquire();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // close() interrupts a call in progress (Redisson wraps the interrupt); anything else is a real failure.
            if (!closing) {
                throw e;
            }
        }
    }

    @Override
    public void release(int contender) {
        releaseSignals[contender].release();
    }

    @Override
    public void rejoin(int contender) throws InterruptedException {
        rejoinSignals[contender].release();
        awaitWaiters(CONTENDERS - 1);
    }

    private void awaitWaiters(int count) throws InterruptedException {
        if (!admin.awaitSubscribers(channel, count, READY_TIMEOUT)) {
            throw new IllegalStateException("fewer than " + count + " Redisson clients waiting on " + channel);
        }
    }

    @Override
    public void close() {
        closing = true;
        for (Thread thread : threads) {
            if (thread != null) {
                thread.interrupt();
            }
        }
        for (Thread thread : threads) {
            if (thread != null) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (RedissonClient client : clients) {
            if (client != null) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
        if (admin != null) {
            admin.close();
        }
    }
}
