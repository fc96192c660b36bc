package dev.baton.bench.jmh;

import dev.baton.core.store.LeaseNotice;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The wire form of lease notices, which every follower parses on every release: encode and decode cost. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LeaseNoticeBenchmark {

    private final LeaseNotice notice = new LeaseNotice(LeaseNotice.Kind.RELEASED,
            "3f2c8a1e-6b7d-4e52-9a0f-1c2d3e4f5a6b", 1_733_000_000_123_456L);
    private final String encoded = notice.encode();

    @Benchmark
    public String encode() {
        return notice.encode();
    }

    @Benchmark
    public LeaseNotice decode() {
        return LeaseNotice.decode(encoded);
    }
}
