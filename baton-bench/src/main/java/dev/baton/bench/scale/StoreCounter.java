package dev.baton.bench.scale;

import dev.baton.bench.backend.BenchBackend;
import dev.baton.bench.backend.EtcdBackend;
import dev.baton.bench.backend.PostgresBackend;
import dev.baton.bench.backend.RedisBackend;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The store's own count of the work it did, read from the outside: Redis's {@code total_commands_processed}, or
 * PostgreSQL's finished transactions of the database, or the gRPC requests the etcd members received. A Redis or
 * PostgreSQL reading is itself one command or transaction, counted by the next reading; {@link #read()} leaves those
 * out. etcd's reading is an HTTP {@code GET /metrics}, which is not gRPC and not counted.
 */
final class StoreCounter {

    private final String unit;
    private final Duration lag;
    private final long countedPerRead;
    private final Callable<Long> raw;
    private long reads;

    private StoreCounter(String unit, Duration lag, long countedPerRead, Callable<Long> raw) {
        this.unit = unit;
        this.lag = lag;
        this.countedPerRead = countedPerRead;
        this.raw = raw;
    }

    static StoreCounter of(BenchBackend backend) {
        if (backend instanceof RedisBackend redis) {
            return new StoreCounter("Redis commands", Duration.ZERO, 1, redis.admin()::totalCommandsProcessed);
        }
        if (backend instanceof EtcdBackend etcd) {
            return new StoreCounter("etcd gRPC requests", Duration.ZERO, 0, etcd::grpcRequests);
        }
        PostgresBackend postgres = (PostgresBackend) backend;
        // A backend that reported less than a second ago holds its counts back for up to 10 s (PGSTAT_IDLE_INTERVAL).
        return new StoreCounter("transactions", Duration.ofSeconds(10), 1, postgres::transactions);
    }

    /** What is counted, e.g. {@code Redis commands}. */
    String unit() {
        return unit;
    }

    /** How late the count may include work already done: a window must start this long after a burst. */
    Duration lag() {
        return lag;
    }

    /** The count so far, without this counter's own readings. */
    long read() throws Exception {
        long value = raw.call() - reads * countedPerRead;
        reads++;
        return value;
    }
}
