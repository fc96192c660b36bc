package dev.baton.bench.replicawait;

import dev.baton.bench.BenchOptions;
import dev.baton.bench.Scenario;
import dev.baton.bench.stats.MarkdownTable;
import dev.baton.bench.stats.Samples;
import dev.baton.bench.stats.Summary;
import dev.baton.bench.support.Environment;
import dev.baton.core.NodeInfo;
import dev.baton.core.store.AcquireResult;
import dev.baton.redis.RedisStore;
import dev.baton.redis.RedisStoreOptions;
import dev.baton.testkit.RedisSentinelTopology;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code replica-wait}: what {@code RedisStoreOptions.waitReplicas} costs on a Redis Sentinel deployment (one primary,
 * two replicas on loopback). One store per setting (no wait; {@code WAIT 1}; {@code WAIT 2}), each timing the calls
 * the option adds a {@code WAIT} to: an acquire that is granted (the lease is released between samples, untimed), a
 * renewal, an accepted fenced write, and a fenced read (which the option confirms with a {@code WAIT} too). The
 * settings take turns sample by sample, so a change of machine load falls on all of them alike.
 */
public final class ReplicaWaitScenario implements Scenario {

    private static final String GROUP = "replica-wait";
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration WAIT_TIMEOUT = Duration.ofMillis(200);
    private static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

    @Override
    public String name() {
        return "replica-wait";
    }

    @Override
    public String description() {
        return "acquire, renew, fenced write and read latency on Redis Sentinel with waitReplicas 0, 1 and 2";
    }

    @Override
    public void run(BenchOptions options, PrintStream out) throws Exception {
        int n = options.n(500);
        int warmup = options.warmup(50);
        List<Setting> settings = List.of(new Setting("no wait", 0), new Setting("waitReplicas 1", 1),
                new Setting("waitReplicas 2", 2));
        try (RedisSentinelTopology redis = RedisSentinelTopology.start()) {
            List<RedisStore> stores = new ArrayList<>();
            try {
                for (Setting setting : settings) {
                    RedisStoreOptions.Builder builder = RedisStoreOptions.builder().uri(redis.sentinelUri());
                    stores.add(RedisStore.connect(setting.replicas() == 0 ? builder.build()
                            : builder.waitReplicas(setting.replicas(), WAIT_TIMEOUT).build()));
                }
                List<Samples[]> samples = new ArrayList<>();
                for (int s = 0; s < settings.size(); s++) {
                    samples.add(new Samples[] {new Samples(warmup, n), new Samples(warmup, n),
                            new Samples(warmup, n), new Samples(warmup, n)});
                }
                for (int i = 0; i < warmup + n; i++) {
                    for (int s = 0; s < settings.size(); s++) {
                        measure(stores.get(s), GROUP + "-" + s, samples.get(s));
                    }
                }
                out.println("## Replica wait: the cost of `waitReplicas` on Redis Sentinel");
                out.println();
                out.println(Environment.machine() + ". One primary, two replicas, three Sentinels on loopback; "
                        + "waitReplicas timeout " + WAIT_TIMEOUT.toMillis() + " ms; " + n + " samples after " + warmup
                        + " warm-up, settings in turn. Times in ms.");
                out.println();
                MarkdownTable table = new MarkdownTable("setting", "acquire p50", "acquire p99", "renew p50",
                        "renew p99", "fenced write p50", "fenced write p99", "fenced read p50", "fenced read p99");
                for (int s = 0; s < settings.size(); s++) {
                    Samples[] of = samples.get(s);
                    Summary acquire = of[0].summary();
                    Summary renew = of[1].summary();
                    Summary write = of[2].summary();
                    Summary read = of[3].summary();
                    table.row(settings.get(s).name(), MarkdownTable.millis(acquire.p50()),
                            MarkdownTable.millis(acquire.p99()), MarkdownTable.millis(renew.p50()),
                            MarkdownTable.millis(renew.p99()), MarkdownTable.millis(write.p50()),
                            MarkdownTable.millis(write.p99()), MarkdownTable.millis(read.p50()),
                            MarkdownTable.millis(read.p99()));
                }
                out.print(table.render());
                out.println();
            } finally {
                stores.forEach(RedisStore::close);
            }
        }
    }

    /** One sample of each call: acquire (granted), renew, fenced write, fenced read; then an untimed release. */
    private static void measure(RedisStore store, String group, Samples[] into) throws Exception {
        long start = System.nanoTime();
        AcquireResult result = get(store.leases().acquire(group, NodeInfo.of("bench", "replica-wait"), TTL));
        into[0].add(System.nanoTime() - start);
        if (!(result instanceof AcquireResult.Granted granted)) {
            throw new IllegalStateException("the bench's acquire was denied: " + result);
        }
        start = System.nanoTime();
        boolean renewed = get(store.leases().renew(group, "bench", granted.term(), TTL));
        into[1].add(System.nanoTime() - start);
        start = System.nanoTime();
        boolean written = get(store.registers().fencedWrite(group, "register", "bench", granted.term(), VALUE))
                .accepted();
        into[2].add(System.nanoTime() - start);
        start = System.nanoTime();
        boolean read = get(store.registers().fencedRead(group, "register")).isPresent();
        into[3].add(System.nanoTime() - start);
        if (!renewed || !written || !read) {
            throw new IllegalStateException("the bench's renewal, fenced write or read was refused or empty");
        }
        get(store.leases().release(group, "bench", granted.term()));
    }

    private static <T> T get(CompletableFuture<T> call) throws Exception {
        return call.get(10, TimeUnit.SECONDS);
    }

    /** A store setting: its label and how many replicas it waits for. */
    private record Setting(String name, int replicas) {
    }
}
