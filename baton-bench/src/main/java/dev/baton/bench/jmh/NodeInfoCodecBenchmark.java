package dev.baton.bench.jmh;

import dev.baton.core.NodeInfo;
import dev.baton.redis.ProcessEntryJson;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The Redis registry's per-process JSON ({@link ProcessEntryJson}, the form the store writes and reads), as the
 * registry scenario registers it: a listing of 10,000 processes decodes 10,000 of these, so {@code decode} x 10,000
 * is the client-side CPU floor of {@code members()}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NodeInfoCodecBenchmark {

    private final NodeInfo node = NodeInfo.of("process-01234", "bench-worker")
            .withApiAddress("http://127.0.0.1:21234")
            .withMetadata(Map.of("zone", "zone-1", "version", "1.4.2"))
            .withTimes(Instant.parse("2026-11-21T20:25:28.286Z"), Instant.parse("2026-11-21T20:25:38.286Z"));
    private final byte[] json = ProcessEntryJson.encode(node);

    @Benchmark
    public byte[] encode() {
        return ProcessEntryJson.encode(node);
    }

    @Benchmark
    public NodeInfo decode() {
        return ProcessEntryJson.decode(json);
    }
}
