package dev.baton.core;

import dev.baton.core.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

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
 *
 * <p>Read-only: only the election that issued a leadership can move its deadline (after a successful renewal, or a
 * majority's acknowledgement on the serverless backends). Nothing a holder of this object does keeps it valid longer.
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
    private final LongSupplier deadline;

    /**
     * A leadership whose deadline the issuer moves: {@code deadline} answers the current deadline on
     * {@link Clock#nanoTime()}, and only whoever holds it (the election) can change the answer.
     */
    public Leadership(String group, String nodeId, long term, LongSupplier deadline, Clock clock, TermCheck termCheck) {
        this.group = group;
        this.nodeId = nodeId;
        this.term = term;
        this.deadline = Objects.requireNonNull(deadline, "deadline");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.termCheck = Objects.requireNonNull(termCheck, "termCheck");
    }

    /** A leadership with a fixed deadline on {@link Clock#nanoTime()}, for example one read back or made in a test. */
    public Leadership(String group, String nodeId, long term, long deadlineNanos, Clock clock, TermCheck termCheck) {
        this(group, nodeId, term, () -> deadlineNanos, clock, termCheck);
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
        return deadline.getAsLong();
    }

    /** Time left before the local deadline; zero or negative once it has passed. */
    public Duration remaining() {
        return Duration.ofNanos(deadlineNanos() - clock.nanoTime());
    }

    /** True while this node still holds this term and its local deadline has not passed. */
    public boolean isValid() {
        return clock.nanoTime() - deadlineNanos() < 0 && termCheck.holds(term);
    }

    public LeaderInfo info() {
        return new LeaderInfo(nodeId, term);
    }

    @Override
    public String toString() {
        return "Leadership{group=" + group + ", node=" + nodeId + ", term=" + term + ", remaining=" + remaining() + "}";
    }
}
