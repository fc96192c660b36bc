package dev.baton.core;

import dev.baton.core.time.Clock;
import java.time.Duration;

/**
 * One term of leadership held by this node.
 *
 * <p>The {@link #term()} is the fencing token: it strictly increases each time the group's lease changes hands,
 * across all nodes and restarts. Pass it with every write the leader makes to a shared resource so that the resource
 * can refuse a write from an older term (see {@code dev.baton.core.fencing}).
 *
 * <p>The leadership is valid until a local deadline on the monotonic clock that ends safely before the store could
 * hand the lease to someone else. {@link #isValid()} answers whether this node may still act as leader <em>now</em>;
 * by the time a caller acts on the answer it may have changed, which is why writes should also be fenced.
 */
public final class Leadership {

    /** How the election tells whether this term is still the one it holds. */
    @FunctionalInterface
    public interface TermCheck {
        boolean holds(long term);
    }

    private final String nodeId;
    private final String group;
    private final long term;
    private final Clock clock;
    private final TermCheck termCheck;
    private volatile long deadlineNanos;

    public Leadership(String group, String nodeId, long term, long deadlineNanos, Clock clock, TermCheck termCheck) {
        this.group = group;
        this.nodeId = nodeId;
        this.term = term;
        this.deadlineNanos = deadlineNanos;
        this.clock = clock;
        this.termCheck = termCheck;
    }

    public String group() {
        return group;
    }

    public String nodeId() {
        return nodeId;
    }

    /** The fencing token of this leadership. */
    public long term() {
        return term;
    }

    /** The local deadline, on {@link Clock#nanoTime()}, until which this leadership is valid unless renewed. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Time left before the local deadline; zero or negative once it has passed. */
    public Duration remaining() {
        return Duration.ofNanos(deadlineNanos - clock.nanoTime());
    }

    /** True while this node still holds this term and its local deadline has not passed. */
    public boolean isValid() {
        return clock.nanoTime() - deadlineNanos < 0 && termCheck.holds(term);
    }

    /** Called by the election after a renewal; the deadline only moves forward. */
    public void extendTo(long newDeadlineNanos) {
        if (newDeadlineNanos - deadlineNanos > 0) {
            deadlineNanos = newDeadlineNanos;
        }
    }

    public LeaderInfo info() {
        return new LeaderInfo(nodeId, term);
    }

    @Override
    public String toString() {
        return "Leadership{group=" + group + ", node=" + nodeId + ", term=" + term + ", remaining=" + remaining() + "}";
    }
}
