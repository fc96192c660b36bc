package dev.baton.examples;

// region readme
import dev.baton.core.Baton;
import dev.baton.core.ElectionConfig;
import dev.baton.core.ElectionEvent;
import dev.baton.core.Leadership;
import dev.baton.core.StoreElection;
import dev.baton.core.fencing.FencedRegister;
import dev.baton.core.store.CoordinationStore;
import dev.baton.core.store.StoreException;
import dev.baton.redis.RedisStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a job every second on whichever copy of this program leads the group; start two and stop the leader. */
public final class LeaderOnlyScheduler {

    public static void main(String[] args) throws InterruptedException {
        String redisUri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        String group = args.length > 1 ? args[1] : "orders-scheduler";
        try (RedisStore store = RedisStore.connect(redisUri)) {
            lead(store, group);
        } catch (StoreException e) {                     // Redis unreachable, wrong password, ...
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }

    static void lead(CoordinationStore store, String group) throws InterruptedException {
        ScheduledExecutorService jobs = Executors.newSingleThreadScheduledExecutor();
        AtomicReference<ScheduledFuture<?>> job = new AtomicReference<>();
        try (StoreElection election = Baton.election(store)
                .group(group)
                .config(ElectionConfig.defaults())   // lease 30 s, renewed every 10 s
                .build()) {                          // Ctrl-C or SIGTERM closes it too: a leader releases at once
            FencedRegister lastRun = election.fencedRegister("last-run");
            election.addListener(event -> {
                if (event instanceof ElectionEvent.LeadershipAcquired acquired) {
                    Leadership leadership = acquired.leadership();
                    System.out.println("leader of " + group + " with term " + leadership.term());
                    job.set(jobs.scheduleAtFixedRate(() -> runJob(lastRun, leadership), 0, 1, TimeUnit.SECONDS));
                } else if (event instanceof ElectionEvent.LeadershipLost lost) {
                    ScheduledFuture<?> running = job.getAndSet(null);
                    if (running != null) {
                        running.cancel(false);           // stop at once: the term is over
                    }
                    System.out.println("no longer leader (term " + lost.term() + ", " + lost.reason() + ")");
                } else if (event instanceof ElectionEvent.LeaderChanged changed) {
                    changed.leader().ifPresent(leader ->
                            System.out.println("leader is " + leader.nodeId() + " (term " + leader.term() + ")"));
                }
            });
            System.out.println("node " + election.nodeId() + " joining " + group);
            election.start();
            new CountDownLatch(1).await();               // run until the JVM is stopped
        } finally {
            jobs.shutdownNow();
        }
    }

    /** The leader-only work. Its write carries the term, so the store refuses it once a newer leader exists. */
    private static void runJob(FencedRegister lastRun, Leadership leadership) {
        byte[] result = ("run by term " + leadership.term()).getBytes(StandardCharsets.UTF_8);
        lastRun.write(leadership, result).thenAccept(write -> {
            if (!write.accepted()) {
                System.out.println("write of term " + leadership.term() + " refused: a newer leader exists");
            }
        });
    }
}
// endregion
