package dev.baton.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.ElectionMetrics;
import dev.baton.core.time.Clock;
import java.util.function.Consumer;

/**
 * {@code --chaos-hooks}: the node's {@link ElectionMetrics}, which also prints a {@code valid-until} line each time the
 * election sets or moves its leadership's local deadline ({@link ElectionMetrics#validUntil}), so that the fault
 * harness can tell exactly until when each node could have counted itself leader. The line carries {@code term},
 * {@code deadline} (the deadline as a real {@link System#nanoTime()} reading: on {@code --clock-rate} the node's
 * reading is turned back into real time, {@link RateClock#toReal(Clock, long)}) and {@code mono} (real time of the
 * call). Without a local deadline ({@code --naive}) the deadline reported is the one the election uses, a day on.
 *
 * <p>Called on the election's thread, before the new deadline takes effect, and quick: the line is built there and
 * handed to {@code print}, which must not block. Every callback also goes to {@code delegate}.
 */
final class ChaosValidity implements ElectionMetrics {

    private final ElectionMetrics delegate;
    private final Clock clock;
    private final EventJson json;
    private final Consumer<ObjectNode> print;

    ChaosValidity(ElectionMetrics delegate, Clock clock, EventJson json, Consumer<ObjectNode> print) {
        this.delegate = delegate;
        this.clock = clock;
        this.json = json;
        this.print = print;
    }

    @Override
    public void storeCall(String operation, long nanos, boolean succeeded) {
        delegate.storeCall(operation, nanos, succeeded);
    }

    @Override
    public void leaseRenewed(long latencyNanos, long marginNanos) {
        delegate.leaseRenewed(latencyNanos, marginNanos);
    }

    @Override
    public void validUntil(long term, long deadlineNanos) {
        long mono = System.nanoTime();
        ObjectNode line = json.validUntil(term, RateClock.toReal(clock, deadlineNanos), clock.instant());
        print.accept(EventJson.stamp(line, "mono", mono));
        delegate.validUntil(term, deadlineNanos);
    }
}
