package dev.baton.bench.handover;

import dev.baton.bench.stats.Samples;
import java.util.Random;

/**
 * Runs the handover method on one set of {@link Contenders}: the leader holds (per {@link Pass}), t0 is taken
 * just before its release call, t1 in the next leader's callback; the first {@code warmup} handovers are discarded.
 */
public final class HandoverHarness {

    private static final long HANDOVER_TIMEOUT_MILLIS = 15_000;

    /** The outcome of one pass: the kept samples and what went wrong, if anything. */
    public record Result(Samples samples, int selfReacquired, String failure) {
    }

    private final int warmup;
    private final int n;

    public HandoverHarness(int warmup, int n) {
        this.warmup = warmup;
        this.n = n;
    }

    /** Starts {@code contenders}, measures {@code warmup + n} handovers, and leaves them running. */
    public Result run(Contenders contenders, LeaderSink sink, Pass pass, Random random) throws Exception {
        Samples samples = new Samples(warmup, n);
        int selfReacquired = 0;
        LeaderSink.Acquisition first = sink.next(HANDOVER_TIMEOUT_MILLIS);
        if (first == null) {
            return new Result(samples, 0, "no leader within " + HANDOVER_TIMEOUT_MILLIS + " ms");
        }
        int leader = first.contender();
        int toRejoin = -1;
        while (samples.seen() < warmup + n) {
            if (toRejoin >= 0) {
                contenders.rejoin(toRejoin);
                toRejoin = -1;
            }
            long hold = pass.holdMillis(random);
            if (hold > 0) {
                Thread.sleep(hold);
            }
            contenders.release(leader);
            LeaderSink.Acquisition next = sink.next(HANDOVER_TIMEOUT_MILLIS);
            if (next == null) {
                return new Result(samples, selfReacquired, "no new leader within " + HANDOVER_TIMEOUT_MILLIS
                        + " ms after handover " + samples.seen());
            }
            if (next.contender() == leader) {
                // Not a handover: the releaser took it back. Counted, not measured; it releases again next round.
                selfReacquired++;
                continue;
            }
            long t0 = sink.releaseNanos();
            samples.add(next.atNanos() - t0);
            contenders.handedOver(leader, next.contender(), t0, next.atNanos());
            toRejoin = leader;
            leader = next.contender();
        }
        return new Result(samples, selfReacquired, null);
    }
}
